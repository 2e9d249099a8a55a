"""Is one JSON Schema ``pattern`` language contained in another? Decided with interegular's automata.

JSON Schema patterns are ECMA-262 and unanchored: ``p`` accepts every string with a substring matching ``p``.
The pattern is translated to a whole-string language interegular can build (a leading ``^`` and a trailing ``$``
are dropped, otherwise ``[\\s\\S]*`` is added on that side; ``.`` becomes ECMA's "not a line terminator").
Anything whose ECMA-262 meaning the translation cannot reproduce (lookarounds, backreferences, word boundaries,
``\\s``, anchors elsewhere, Python-only syntax) is **unknown**, and so is a pattern whose automaton could blow
up (a bounded repetition after an unanchored start, or more than STATE_BUDGET automaton states built for one
question): the caller then reports the change as breaking both ways. The budget counts states, not seconds, so
a verdict is the same on every machine, under any load and in any thread.
interegular was chosen over greenery by measurement (docs/compatibility.md, "Patterns").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from enum import Enum
from functools import cache
from typing import Any

import interegular.fsm
from interegular import parse_pattern

ANY_STRING = r"[\s\S]*"
NOT_LINE_TERMINATOR = "[^\n\r\u2028\u2029]"  # real characters: interegular has no \\u escape
# Escapes whose ECMA-262 meaning differs from interegular's, or that it cannot build.
REFUSED_ESCAPES = set("bBsSpPkcu0123456789")
MAX_UNANCHORED_REPEAT = 8
MAX_REPEAT = 256
STATE_BUDGET = 2_000
"""Automaton states one comparison may build, over every intermediate automaton; realistic identifier patterns
build fewer than 200."""
REPEAT = re.compile(r"\{(\d*)(?:,(\d*))?\}")


class Inclusion(str, Enum):
    EQUIVALENT = "equivalent"
    NARROWER = "narrower"
    """The new pattern accepts a strict subset of the old one's strings."""
    WIDER = "wider"
    INCOMPARABLE = "incomparable"
    UNKNOWN = "unknown"


def _translate(pattern: str) -> str | None:
    """The whole-string regular language of an unanchored ECMA-262 pattern, in interegular syntax, or None."""
    start_anchored = pattern.startswith("^")
    body = pattern[1:] if start_anchored else pattern
    end_anchored = body.endswith("$") and not body.endswith("\\$")
    body = body[:-1] if end_anchored else body
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\":
            if i + 1 >= len(body) or body[i + 1] in REFUSED_ESCAPES:
                return None
            out.append(body[i : i + 2])
            i += 2
            continue
        if in_class:
            if char == "[":
                return None  # a nested class is a set operation in other dialects
            in_class = char != "]"
        elif char == "[":
            if body[i + 1 : i + 2] == "]" or body[i + 1 : i + 3] == "^]":
                return None  # ECMA's empty and any-character classes
            in_class = True
        elif char in "^$":
            return None  # an anchor inside the pattern
        elif char == "(" and body[i + 1 : i + 2] == "?" and body[i + 2 : i + 3] != ":":
            return None  # lookaround, named group or inline flags
        elif char == "{" and body[i + 1 : i + 2] == ",":
            return None  # Python reads {,n} as {0,n}; ECMA-262 as literal text
        elif char == ".":
            char = NOT_LINE_TERMINATOR
        out.append(char)
        i += 1
    if in_class:
        return None
    translated = "".join(out)
    if not _repeats_bounded(translated, unanchored=not start_anchored):
        return None
    return ("" if start_anchored else ANY_STRING) + f"(?:{translated})" + ("" if end_anchored else ANY_STRING)


def _repeats_bounded(body: str, *, unanchored: bool) -> bool:
    """Guard the automaton size: after ``[\\s\\S]*`` a repetition ``{n}`` costs about 2**n states."""
    limit = MAX_UNANCHORED_REPEAT if unanchored else MAX_REPEAT
    for match in REPEAT.finditer(body):
        bounds = [int(b) for b in match.groups() if b]
        if bounds and max(bounds) > limit:
            return False
    return True


class _OverBudget(BaseException):
    """Raised inside interegular's crawl; a BaseException so that no ``except Exception`` swallows it."""


_states_left: ContextVar[list[int] | None] = ContextVar("_states_left", default=None)


@contextmanager
def _state_budget(states: int) -> Iterator[None]:
    """Stop the automaton work of the block once it has built ``states`` states (nested quantifiers can make
    it exponential)."""
    token = _states_left.set([states])
    try:
        yield
    finally:
        _states_left.reset(token)


def _hashable(state: Any) -> Any:
    """A crawl state as a dictionary key, equal where the original's list search found states equal: the product
    and complement states are dicts, the initial states of star and repetition sets."""
    if isinstance(state, dict):
        return frozenset(state.items())
    return frozenset(state) if isinstance(state, set) else state


def _budgeted_crawl(alphabet: Any, initial: Any, final: Callable[[Any], Any], follow: Callable[[Any, Any], Any]) -> Any:
    """interegular's ``crawl`` (every automaton it builds goes through it), charging each new state to the budget.

    The same automaton, numbered the same way, as the original; a state is found by hashing rather than by a
    search of the list (which made the original quadratic in the number of states).
    """
    left = _states_left.get()
    states = [initial]
    numbers = {_hashable(initial): 0}
    finals = set()
    transitions: dict[int, dict[Any, int]] = {}
    i = 0
    while i < len(states):
        if left is not None:
            left[0] -= 1
            if left[0] < 0:
                raise _OverBudget
        state = states[i]
        if final(state):
            finals.add(i)
        transitions[i] = {}
        for transition in alphabet.by_transition:
            try:
                following = follow(state, transition)
            except interegular.fsm.OblivionError:
                continue
            j = numbers.setdefault(_hashable(following), len(states))
            if j == len(states):
                states.append(following)
            transitions[i][transition] = j
        i += 1
    return interegular.fsm.FSM(
        alphabet=alphabet,
        states=range(len(states)),
        initial=0,
        finals=finals,
        map=transitions,
        __no_validation__=True,
    )


# interegular (pinned) calls its module-level crawl by name from every FSM operation: the one place to count.
interegular.fsm.crawl = _budgeted_crawl


@cache
def _automaton(pattern: str) -> Any:
    translated = _translate(pattern)
    if translated is None:
        return None
    try:
        return parse_pattern(translated).to_fsm()
    except Exception:  # interegular's Unsupported, or a pattern it cannot parse: the language is unknown
        return None


def automaton(pattern: str) -> Any:
    """The whole-string automaton of an ECMA-262 pattern, or None when unknown (or over the state budget)."""
    try:
        with _state_budget(STATE_BUDGET):
            return _automaton(pattern)
    except _OverBudget:
        return None


def compare_patterns(old: str, new: str) -> Inclusion:
    """How the strings accepted by ``new`` relate to those accepted by ``old``."""
    try:
        with _state_budget(STATE_BUDGET):
            return _compare(_automaton(old), _automaton(new))
    except _OverBudget:
        return Inclusion.UNKNOWN


def _compare(before: Any, after: Any) -> Inclusion:
    if before is None or after is None:
        return Inclusion.UNKNOWN
    narrower, wider = after.issubset(before), after.issuperset(before)
    if narrower and wider:
        return Inclusion.EQUIVALENT
    if narrower:
        return Inclusion.NARROWER
    return Inclusion.WIDER if wider else Inclusion.INCOMPARABLE


def accepts_every_string(pattern: str) -> bool:
    """``""``, ``.*``, ``^[\\s\\S]*$``: a pattern that constrains nothing (False when unknown)."""
    return compare_patterns("", pattern) in (Inclusion.EQUIVALENT, Inclusion.WIDER)
