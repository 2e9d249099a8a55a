"""``check``'s failure budget (SPEC 11): what each chunk tells the budget, failures files, and the run.

A chunk's facts are one state byte per line (blank, usable, masked, failed), from the pre-check's status
bytes and the judged outcomes, plus, for the lines the budget must look into, their failure kind, group and
identity. Facts travel in the chunk's ``Tally`` (``--jobs`` workers send them back with it) and are fed to
one ``FailureBudget`` in input order by the parent, so any partitioning gives the same budget.
"""

from __future__ import annotations

import json
import re
from array import array
from bisect import bisect_right
from itertools import repeat
from operator import add, attrgetter, sub

from verify_contract.budget import (
    ABSENT_GROUP,
    FAILED,
    FAILURE_CLASS_KEY,
    MASKED,
    NO_KIND,
    OK,
    FailureBudget,
    GroupPath,
    _kind_of,
    _label,
    group_of,
    identity_of,
)
from verify_contract.check import _fastpath as fastpath
from verify_contract.check._sidecars import sidecar_of
from verify_contract.findings import Finding, Severity
from verify_contract.records import FrozenRecord, Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from verify_contract.budget import BudgetEvent
    from verify_contract.check._lines import LineFacts
    from verify_contract.check._outcome import Outcome

# A line's state byte in ChunkFacts.states: 0 is a blank line (no rollout), then 1 + the budget's state.
BLANK_LINE, USABLE, MASKED_LINE, FAILED_LINE = 0, 1 + OK, 1 + MASKED, 1 + FAILED
_UNSETTLED = 255  # a line the pre-check handed on: its outcome decides


def _status_states() -> bytes:
    table = bytearray([_UNSETTLED] * 256)
    table[fastpath.STATUS_BLANK] = BLANK_LINE
    for status in fastpath.CLEAN_STATUSES:
        masked, _legacy, _kind = fastpath.clean_facts(status)
        table[status] = MASKED_LINE if masked else USABLE
    return bytes(table)


STATUS_STATES = _status_states()
_LINE_TO_BUDGET = bytes((value - 1) % 256 for value in range(256))
"""A line's state byte to the budget's state (``budget.OK``, ``MASKED``, ``FAILED``)."""
_BLANKS = re.compile(rb"\x00")


class FactSpec(FrozenRecord):
    """What the budget needs from each line: the group paths, and whether every line's identity (for
    ``--expected`` and the retry list) or only the masked and failed lines' kinds."""

    __slots__ = ("group_paths", "identities")
    group_paths: tuple[GroupPath, ...]
    identities: bool

    def __init__(self, group_paths: tuple[GroupPath, ...] = (), identities: bool = False) -> None:
        self._freeze(group_paths, identities)

    @property
    def every_line(self) -> bool:
        return bool(self.group_paths) or self.identities


Detail = tuple["str | None", tuple[str, ...], "tuple[Any, ...] | None"]
"""(failure kind, group, identity) of a line."""
Groups = tuple[bytes, list[tuple[str, ...]], list[int]]
"""A chunk's groups: a uint32 combination id per line (native order; blank lines' ids mean nothing), each
combination's group values, and the index of the first line that has it."""


_LITERALS: dict[bytes, Any] = {b"null": None, b"true": True, b"false": False, b"{}": {}, b"[]": []}
_INTEGER = re.compile(rb"-?(?:0|[1-9][0-9]{0,17})")  # the scan hands wider integers to a parse


def raw_label(raw: bytes) -> str:
    """A group value's label from its JSON text, as ``group_of`` labels the parsed value (orjson, the parse
    the budget makes of a line): the compiled scan calls it once per distinct text in a chunk. Its text is
    strict JSON (the scan read it), so a string without an escape is its bytes and an integer is ``int``'s;
    the rest (escapes, fractions) goes through ``_loads``."""
    if raw in _LITERALS:
        return _label(_LITERALS[raw])
    if raw[:1] == b'"' and b"\\" not in raw:
        return _label(raw[1:-1].decode())
    if _INTEGER.fullmatch(raw):
        return _label(int(raw))
    return _label(_loads(raw))


def group_labels(spec: FactSpec) -> tuple[tuple[GroupPath, ...], Callable[[bytes], str]] | None:
    """What the compiled scan needs to read each line's group (``fastpath.scan_kinds``), when the budget groups
    and tracks no identities (those take a parse of every line)."""
    return (spec.group_paths, raw_label) if spec.group_paths and not spec.identities else None


class ChunkFacts(Record):
    """The budget's view of one chunk: ``states`` (a byte per line) and ``details`` (line index -> Detail)
    of the lines it looked into; line numbers count from ``first_line`` in ``path``."""

    __slots__ = ("path", "first_line", "states", "details", "sidecar", "bad", "groups")  # noqa: RUF023
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        path: str,
        first_line: int,
        states: bytes,
        details: dict[int, Detail],
        sidecar: bool = False,
        bad: tuple[list[int], bytes, list[str | None]] | None = None,
        groups: list[Groups] | None = None,
    ) -> None:
        self.path = path
        self.first_line = first_line
        self.states = states
        self.details = details  # every line's, when the budget groups or identifies rollouts
        self.sidecar = sidecar
        # Otherwise the masked and failed lines alone, in order: their line indices, budget states, kinds.
        self.bad = bad
        # With groups and no identities: each line's group, as (ids, combinations, firsts) (``Groups``) per
        # chunk scanned (chunks fed together keep theirs: a combination's id is its scan's).
        self.groups = groups

    def __reduce__(self) -> tuple[Any, ...]:
        fields = (self.path, self.first_line, self.states, self.details, self.sidecar, self.bad, self.groups)
        return (ChunkFacts, fields)


def _text_rules() -> frozenset[str]:
    from verify_contract.contract._model import contract_model
    from verify_contract.generated import LATEST_VERSION

    return frozenset(rule["id"] for rule in contract_model(LATEST_VERSION).rules if rule.get("scope") == "text")


TEXT_RULES = _text_rules()
"""The rules of a JSON-text defect (the model's ``text`` scope): such a line has no document to read."""
REREAD_MEMBER = b'"' + FAILURE_CLASS_KEY.encode() + b'"'
"""A line without a failure-kind string that names this member takes its kind from it (``budget._kind_of``):
the pre-check leaves such lines to a parse."""
_BAD_STATES = bytes(MASKED if value == MASKED_LINE else FAILED if value == FAILED_LINE else 0 for value in range(256))
"""A masked or failed line's state byte to the budget's state, any other to 0 (not one of the budget's lines)."""
assert OK == 0 and MASKED and FAILED


_FACTS = attrgetter("valid", "masked")
_STATES = {(True, False): USABLE, (True, True): MASKED_LINE, (False, False): FAILED_LINE, (False, True): FAILED_LINE}
"""A line's state byte by its outcome's (valid, masked)."""


def _state(outcome: Outcome) -> int:
    return _STATES[outcome.valid, outcome.masked]


def _orjson_loads(line: bytes | memoryview) -> Any:
    import orjson

    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


_SURROGATE_ESCAPE = re.compile(rb"\\[uU][dD][89a-fA-F]")
"""An escaped UTF-16 surrogate (\\ud800-\\udfff): orjson refuses an unpaired one, json takes it: to orjson."""


def _orjson_int(text: str) -> int | float:
    """An integer as orjson reads it: an int within 64 bits (signed or not), else the float it rounds to."""
    value = int(text)
    return value if -(1 << 63) <= value < 1 << 64 else _orjson_float(text)


def _orjson_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number is infinity when parsed as double: {text[:40]}")
    return value


def _refused(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


JSON_BYTES = 1 << 20
"""Bytes the json module parses for the budget before orjson takes over: orjson's import (about 30 ms, with
dataclasses and uuid) costs what json's slower parse (about 13 ns a byte more) costs on 2 MiB of lines, so
a run pays at most about 1.5 times the cheaper of the two."""
_parsed_by_json = [0]  # bytes so far, in this process


def _loads(line: bytes | memoryview) -> Any:
    """A line parsed as orjson parses it (the budget's parse: a last repeated member wins, NaN and unpaired
    surrogates are refused, integers past 64 bits are floats). The first ``JSON_BYTES`` go through the json
    module ``check`` has imported already, with orjson's number and constant rules, so a run that parses few
    lines never imports orjson; orjson parses the rest, and every line where the two could disagree (an
    escaped surrogate) or json refuses it."""
    raw = bytes(line)
    if _parsed_by_json[0] < JSON_BYTES and not _SURROGATE_ESCAPE.search(raw):
        _parsed_by_json[0] += len(raw)
        try:
            return json.loads(raw.decode(), parse_int=_orjson_int, parse_float=_orjson_float, parse_constant=_refused)
        except (ValueError, RecursionError):
            pass  # refused by json (or too deep for it): orjson says
    return _orjson_loads(raw)


def chunk_facts(chunk: bytes | memoryview, lines: LineFacts, first_line: int, path: str, spec: FactSpec) -> ChunkFacts:
    """The facts of a chunk the pre-check scanned, with the outcomes of the lines it handed on (``lines``).

    Without groups or identities only masked and failed lines are looked into, and their failure kinds come
    from the pre-check (``fastpath.scan_kinds``): a line is parsed only where it could not say (an escape,
    a failures-file member, a line it did not read whole). With them, every line is parsed (measured in
    benchmarks/budget.py).
    """
    states = bytearray(lines.statuses.translate(STATUS_STATES))
    view = chunk if isinstance(chunk, memoryview) else memoryview(chunk)
    others = lines.others
    if others:
        # A state per memo key (a key decides the outcome), then per line through its key, scattered in C.
        keys, outcomes = lines.keyed
        key_states: dict[bytes | None, int] = dict(
            zip(keys, map(_STATES.__getitem__, map(_FACTS, outcomes)), strict=True)
        )
        fastpath.scatter(states, others, key_states)  # the lines without a key: below
        for index, outcome in lines.unkeyed.items():
            states[index] = _state(outcome)
    if spec.identities:
        return _every_line(chunk, bytes(states), first_line, path, spec)
    bad, labels, bad_states, unknown = fastpath.gather(states, _BAD_STATES, lines.kinds)
    if unknown:  # lines the pre-check did not read whole nor key, or whose kind it left to a parse
        spans = {index: (start, stop) for index, start, stop, _ in others}
        spans.update((index, (start, stop)) for index, start, stop in lines.reread)
        for at, label in enumerate(labels):
            if label is None:
                labels[at] = _unread_kind(view, spans[bad[at]], lines.unkeyed.get(bad[at]))
    groups = [_groups(chunk, states, lines.groups, spec.group_paths)] if spec.group_paths else None
    return ChunkFacts(path, first_line, bytes(states), {}, bad=(bad, bad_states, labels), groups=groups)


def _groups(
    chunk: bytes | memoryview, states: bytearray, scanned: fastpath.GroupIds | None, paths: tuple[GroupPath, ...]
) -> Groups:
    """Every line's group: the compiled scan's, and a parse of each line it did not read whole (all of them
    without it), labelled as ``group_of`` labels a parsed row."""
    if scanned is None:
        ids, combos, firsts = bytearray(b"\xff\xff\xff\xff" * len(states)), [], []
        rows = bytes(chunk).split(b"\n")
        unread: list[tuple[int, bytes | memoryview]] = [
            (index, rows[index]) for index, state in enumerate(states) if state
        ]
    else:
        if not scanned[3]:  # every line read whole
            return scanned[0], scanned[1], scanned[2]
        ids, combos, firsts = bytearray(scanned[0]), list(scanned[1]), list(scanned[2])
        view = chunk if isinstance(chunk, memoryview) else memoryview(chunk)
        unread = [(index, view[start:stop]) for index, start, stop in scanned[3] if states[index]]
    if unread:
        line_ids = memoryview(ids).cast("I")
        known = {combo: at for at, combo in reversed(list(enumerate(combos)))}
        absent = (ABSENT_GROUP,) * len(paths)
        for index, line in unread:
            row = _loads(line)
            group = group_of(row, paths) if isinstance(row, dict) else absent
            at = known.get(group)
            if at is None:
                at = known[group] = len(combos)
                combos.append(group)
                firsts.append(index)
            elif firsts[at] > index:
                firsts[at] = index
            line_ids[index] = at
    return bytes(ids), combos, firsts


def _unread_kind(view: memoryview, span: tuple[int, int], outcome: Outcome | None) -> str:
    """The kind of a masked or failed line the pre-check gave none: none for a JSON-text defect (no document,
    SPEC 11.1, even where a lenient parser would read one), else the parsed document's."""
    if outcome is not None and not TEXT_RULES.isdisjoint(finding.rule for finding in outcome.findings):
        return NO_KIND
    row = _loads(view[span[0] : span[1]])
    return (_kind_of(row) if isinstance(row, dict) else None) or NO_KIND


def _every_line(chunk: bytes | memoryview, states: bytes, first_line: int, path: str, spec: FactSpec) -> ChunkFacts:
    """Every line's kind, group and identity (``--group-by``, ``--expected``, the retry list): each parsed."""
    details: dict[int, Detail] = {}
    lines = bytes(chunk).split(b"\n")
    for index, state in enumerate(states):
        if not state:
            continue
        row = _loads(lines[index])
        if isinstance(row, dict):
            kind = _kind_of(row) if state != USABLE else None
            details[index] = (kind, group_of(row, spec.group_paths), identity_of(row) if spec.identities else None)
        else:
            details[index] = (None, (ABSENT_GROUP,) * len(spec.group_paths), None)
    return ChunkFacts(path, first_line, states, details)


# -- failures files ------------------------------------------------------------------------------------------
# Where they are: _sidecars (a plain check looks for them without importing the budget).


class SidecarRead(Record):
    """A failures file read as the budget counts it: every JSON-object row a failed rollout."""

    __slots__ = ("facts", "rows", "blank", "unreadable", "classes", "findings")  # noqa: RUF023
    __hash__ = None  # type: ignore[assignment]

    def __init__(self) -> None:
        self.facts: ChunkFacts | None = None
        self.rows = 0
        self.blank = 0
        self.unreadable = 0
        self.classes: dict[str, int] = {}
        self.findings: list[tuple[int, Finding]] = []


def sidecar_lines(lines: list[bytes], first_line: int, path: str, spec: FactSpec, read: SidecarRead) -> ChunkFacts:
    """Rows of a failures file (whole lines), counted into ``read``: each JSON object a failed attempt; a
    line that is not one is a ``budget-sidecar-unreadable`` finding and no rollout, so the lines add up."""
    states = bytearray()
    details: dict[int, Detail] = {}
    for index, line in enumerate(lines):
        if not line.strip():
            read.blank += 1
            states.append(BLANK_LINE)
            continue
        try:
            row = json.loads(line)
        except ValueError as error:
            row, problem = None, f"not JSON ({str(error)[:80]})"
        else:
            problem = "not a JSON object"
        if not isinstance(row, dict):
            read.unreadable += 1
            states.append(BLANK_LINE)
            message = f"a failures-file line is {problem}: not counted as a rollout"
            finding = Finding("budget-sidecar-unreadable", Severity.WARNING, message)
            read.findings.append((first_line + index, finding))
            continue
        read.rows += 1
        failure_class = row.get(FAILURE_CLASS_KEY)
        label = failure_class if isinstance(failure_class, str) else "(no class)"
        read.classes[label] = read.classes.get(label, 0) + 1
        states.append(FAILED_LINE)
        details[index] = (_kind_of(row), group_of(row, spec.group_paths), identity_of(row))
    return ChunkFacts(path, first_line, bytes(states), details, sidecar=True)


def read_sidecar(path: str, spec: FactSpec) -> SidecarRead:
    """One failures file, whole (``sidecar_lines``)."""
    read = SidecarRead()
    with open(path, "rb") as stream:
        read.facts = sidecar_lines(stream.read().splitlines(), 1, path, spec, read)
    return read


# -- the run -------------------------------------------------------------------------------------------------
def _joined(parts: list[ChunkFacts]) -> ChunkFacts:
    """Consecutive chunks of one file (each with ``bad``) as one."""
    indices: list[int] = []
    labels: list[str | None] = []
    shift = 0
    for part in parts:
        assert part.bad is not None
        part_indices, _, part_labels = part.bad
        indices += map(add, part_indices, repeat(shift)) if shift else part_indices
        labels += part_labels
        shift += len(part.states)
    states = b"".join(part.bad[1] for part in parts if part.bad is not None)
    whole = b"".join(part.states for part in parts)
    groups = None if parts[0].groups is None else [group for part in parts for group in part.groups or ()]
    return ChunkFacts(parts[0].path, parts[0].first_line, whole, {}, bad=(indices, states, labels), groups=groups)


BATCH_LINES = 1 << 16
"""Consecutive chunks of one file wait and are fed to the budget together, up to this many lines: a
``record_run`` costs tens of microseconds whatever its length (measured in benchmarks/budget.py)."""


class BudgetRun:
    """One ``check`` run's budget: the ``FailureBudget`` fed in input order, and the failures files read.

    Reading the run (``budget``, ``events``, ``summary()``, ...) feeds the chunks still waiting first; a
    caller that reports events as they happen (``--follow``) calls ``flush()`` after feeding."""

    def __init__(
        self,
        budget: FailureBudget,
        spec: FactSpec,
        on_event: Callable[[BudgetEvent], None] | None = None,
    ) -> None:
        self._budget = budget
        self.spec = spec
        self.on_event = on_event
        self._events: list[BudgetEvent] = []
        self.sidecars: dict[str, dict[str, Any]] = {}
        self._waiting: list[ChunkFacts] = []
        self._waiting_lines = 0

    @property
    def budget(self) -> FailureBudget:
        self.flush()
        return self._budget

    @property
    def events(self) -> list[BudgetEvent]:
        self.flush()
        return self._events

    @property
    def expected(self) -> int | tuple[int, int] | None:
        return self._budget.expected

    def feed(self, facts: ChunkFacts) -> None:
        """A chunk's facts, in input order: a chunk that continues the waiting ones waits with them."""
        if facts.bad is None or facts.sidecar:
            self.flush()
            self._feed(facts)
            return
        if self._waiting:
            last = self._waiting[-1]
            if last.path != facts.path or last.first_line + len(last.states) != facts.first_line:
                self.flush()
        self._waiting.append(facts)
        self._waiting_lines += len(facts.states)
        if self._waiting_lines >= BATCH_LINES:
            self.flush()

    def flush(self) -> None:
        """Feed the waiting chunks to the budget (their events are reported now)."""
        if not self._waiting:
            return
        waiting, self._waiting, self._waiting_lines = self._waiting, [], 0
        self._feed(waiting[0] if len(waiting) == 1 else _joined(waiting))

    def _feed(self, facts: ChunkFacts) -> None:
        budget = self._budget
        states, details, path, first = facts.states, facts.details, facts.path, facts.first_line
        if facts.groups is not None:
            events = self._feed_groups(facts)
        elif not self.spec.every_line:
            # One pass over the masked and failed lines; usable ones are counted, not visited.
            bad = facts.bad
            if bad is None:  # a failures file's facts: every row listed in details
                rows = [index for index, byte in enumerate(states) if byte]
                kinds: list[str | None] = [details[index][0] or NO_KIND for index in rows]
                bad = (rows, bytes(states[index] for index in rows).translate(_LINE_TO_BUDGET), kinds)
            indices, bad_states, labels = bad
            blanks = [match.start() for match in _BLANKS.finditer(states)] if BLANK_LINE in states else []
            # A rollout's offset in the run is its line index less the blank lines before it.
            offsets = list(map(sub, indices, map(bisect_right, repeat(blanks), indices))) if blanks else indices

            def where_of(offset: int) -> tuple[str, int]:
                index = offset  # the line of the offset-th rollout: the offset plus the blank lines before it
                while index != offset + bisect_right(blanks, index):
                    index = offset + bisect_right(blanks, index)
                return (path, first + index)

            # check's labels hold no None (chunk_facts and the failures-file rows label every line)
            events = budget.record_run(len(states) - len(blanks), offsets, bad_states, labels, where_of, labelled=True)
        else:
            events = []
            absent = (ABSENT_GROUP,) * len(self.spec.group_paths)
            for index, byte in enumerate(states):
                if not byte:
                    continue
                kind, group, identity = details.get(index, (None, absent, None))
                events += budget.record(byte - 1, kind, group, (path, first + index), identity, facts.sidecar)
        for event in events:
            self._events.append(event)
            if self.on_event is not None:
                self.on_event(event)

    def _feed_groups(self, facts: ChunkFacts) -> list[BudgetEvent]:
        """Chunks whose lines' groups the scan read (``chunk_facts``): the whole stream's run and each group's
        share of it, counted a list at a time (``FailureBudget.record_groups``)."""
        assert facts.groups is not None and facts.bad is not None
        states, path, first = facts.states, facts.path, facts.first_line
        indices, bad_states, labels = facts.bad
        blanks = [match.start() for match in _BLANKS.finditer(states)] if BLANK_LINE in states else []
        offsets = list(map(sub, indices, map(bisect_right, repeat(blanks), indices))) if blanks else indices
        # Each chunk's combinations, in the order the lines first show them (line, chunk, combination id).
        seen: list[tuple[int, int, int]] = []
        starts = [0]
        for part, (ids, _, firsts) in enumerate(facts.groups):
            seen += ((starts[-1] + line, part, at) for at, line in enumerate(firsts))
            starts.append(starts[-1] + len(ids) // 4)
        seen.sort()
        folded = self._budget.fold_groups(facts.groups[part][1][at] for _, part, at in seen)
        scopes: dict[tuple[str, ...], int] = {}
        slots = [[0] * len(combos) for _, combos, _ in facts.groups]
        for (_, part, at), group in zip(seen, folded, strict=True):
            slots[part][at] = scopes.setdefault(group, len(scopes))
        view = memoryview(states)
        parts = [
            (view[starts[part] : starts[part + 1]], ids, array("I", slots[part]).tobytes())
            for part, (ids, _, _) in enumerate(facts.groups)
        ]
        tallies = fastpath.group_tally(parts, len(scopes), _BAD_STATES)
        groups = [(group, *tallies[slot]) for group, slot in scopes.items()]

        def where_of(offset: int) -> tuple[str, int]:
            index = offset  # the line of the offset-th rollout: the offset plus the blank lines before it
            while index != offset + bisect_right(blanks, index):
                index = offset + bisect_right(blanks, index)
            return (path, first + index)

        def nth(group: tuple[str, ...], k: int) -> int:
            """The offset among the chunks' rollouts of the group's k-th (once per group: when it fills its
            first window on a usable rollout)."""
            slot, rollout = scopes[group], -1
            for part, (ids, _, _) in enumerate(facts.groups or ()):
                line_ids = memoryview(ids).cast("I")
                for index, state in enumerate(states[starts[part] : starts[part + 1]]):
                    if state:
                        rollout += 1
                        if slots[part][line_ids[index]] == slot:
                            if not k:
                                return rollout
                            k -= 1
            raise AssertionError(f"group {group} has no rollout {k} in the chunks")

        count = len(states) - len(blanks)
        return self._budget.record_groups(count, offsets, bad_states, labels, where_of, groups, nth, labelled=True)

    def add_sidecar(self, path: str, read: SidecarRead) -> None:
        """A failures file's counts (its rows so far: follow mode calls this again as it grows)."""
        self.sidecars[path] = {
            "rows": read.rows,
            "blank": read.blank,
            "unreadable": read.unreadable,
            "classes": dict(sorted(read.classes.items())),
        }
        if read.facts is not None:
            self.feed(read.facts)
            read.facts = None

    def breached(self) -> bool:
        return self.budget.breached

    def missing(self) -> list[tuple[int, int]] | int | None:
        return self.budget.missing()

    def retry_rows(self) -> list[dict[str, Any]]:
        return self.budget.retry_rows()

    def summary(self) -> dict[str, Any]:
        data = self.budget.summary()
        data["failures_files"] = self.sidecars
        return data


__all__ = ["BudgetRun", "ChunkFacts", "FactSpec", "chunk_facts", "read_sidecar", "sidecar_lines", "sidecar_of"]
