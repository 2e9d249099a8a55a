"""``check``'s failure budget (SPEC 11): what each chunk tells the budget, failures files, and the run.

A chunk's facts are one state byte per line (blank, usable, masked, failed), from the pre-check's status
bytes and the judged outcomes, plus, for the lines the budget must look into, their failure kind, group and
identity. Facts travel in the chunk's ``Tally`` (``--jobs`` workers send them back with it) and are fed to
one ``FailureBudget`` in input order by the parent, so any partitioning gives the same budget.
"""

from __future__ import annotations

import gc
import json
import re
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from itertools import repeat
from operator import add, attrgetter, sub

from verify_contract._budget_caps import EVENTS_KEPT, MAX_DISTINCT
from verify_contract.budget import (
    ABSENT_GROUP,
    FAILED,
    FAILURE_CLASS_KEY,
    IDENTITY_KEYS,
    MASKED,
    NO_KIND,
    OK,
    OTHER,
    FailureBudget,
    GroupPath,
    failure_row_first,
    group_label,
    group_of,
    identity_of,
    kind_of,
)
from verify_contract.check import _fastpath as fastpath
from verify_contract.check._report import DEFAULT_MAX_FINDINGS
from verify_contract.findings import Finding, Severity
from verify_contract.generated.contract_names import RULE_BUDGET_SIDECAR_UNREADABLE
from verify_contract.records import FrozenRecord, Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    from verify_contract.budget import BudgetEvent
    from verify_contract.check._lines import LineFacts
    from verify_contract.check._outcome import Outcome
    from verify_contract.check._source import Source

SIDECAR_UNREADABLE = RULE_BUDGET_SIDECAR_UNREADABLE
"""The rule of a failures-file line that is not a JSON object (``budget.BUDGET_RULES``)."""

# A line's state byte in ChunkFacts.states: 0 is a blank line (no rollout), then 1 + the budget's state.
BLANK_LINE, USABLE, MASKED_LINE, FAILED_LINE = 0, 1 + OK, 1 + MASKED, 1 + FAILED
_UNSETTLED = 255  # a line the pre-check handed on: its outcome decides


def _status_states() -> bytes:
    table = bytearray([_UNSETTLED] * 256)
    table[fastpath.STATUS_BLANK] = BLANK_LINE
    for status in fastpath.CLEAN_STATUSES:
        masked, _legacy, _kind = fastpath.clean_outcome(status)
        table[status] = MASKED_LINE if masked else USABLE
    return bytes(table)


STATUS_STATES = _status_states()
_LINE_TO_BUDGET = bytes((value - 1) % 256 for value in range(256))
"""A line's state byte to the budget's state (``budget.OK``, ``MASKED``, ``FAILED``)."""
_BLANKS = re.compile(rb"\x00")


class FactSpec(FrozenRecord):
    """What the budget needs from each line: the group paths, and whether every line's identity (for
    ``--expected`` and the retry list) or only the masked and failed lines' kinds. ``ordered``: the inputs
    (by name) whose failures file is merged into them by identity (SPEC 11.1): their lines' identities too."""

    __slots__ = ("group_paths", "identities", "ordered")
    group_paths: tuple[GroupPath, ...]
    identities: bool
    ordered: frozenset[str]

    def __init__(
        self, group_paths: tuple[GroupPath, ...] = (), identities: bool = False, ordered: frozenset[str] = frozenset()
    ) -> None:
        self._freeze(group_paths, identities, ordered)

    def every_line(self, path: str) -> bool:
        """Whether each line of ``path`` is parsed for its kind, group and identity: with ``--expected`` or a
        retry list, and for a grouped file merged with its failures file by identity (its lines' groups and
        identities alike); other grouped files take the compiled scan's groups (``group_labels``)."""
        return self.identities or (bool(self.group_paths) and path in self.ordered)

    def ordering(self, paths: frozenset[str]) -> FactSpec:
        """This spec, with the lines of ``paths`` identified for the merge with their failures files."""
        return FactSpec(self.group_paths, self.identities, self.ordered | paths)


Detail = tuple["str | None", tuple[str, ...], "tuple[Any, ...] | None"]
"""(failure kind, group, identity) of a line."""
Groups = tuple[bytes, list[tuple[str, ...]], list[int]]
"""A chunk's groups: a uint32 combination id per line (native order; blank lines' ids mean nothing), each
combination's group values, and the index of the first line that has it."""


_LITERALS: dict[bytes, Any] = {b"null": None, b"true": True, b"false": False, b"{}": {}, b"[]": []}
_INTEGER = re.compile(rb"-?(?:0|[1-9][0-9]{0,17})")  # the scan hands wider integers to a parse


_LABELS: dict[bytes, str] = {}
"""Labels made, by JSON text: the compiled scan asks again in every chunk (its table is per call)."""
LABELS_KEPT, LABEL_TEXT_KEPT = 4096, 256
"""At most this many labels are kept (then they are dropped and made again), of texts at most this long."""


def raw_label(raw: bytes) -> str:
    """A group value's label from its JSON text, as ``group_of`` labels the parsed value (orjson, the parse
    the budget makes of a line): the compiled scan calls it once per distinct text in a chunk, and a text's
    label is made once while kept (``_LABELS``)."""
    label = _LABELS.get(raw)
    if label is None:
        label = _made_label(raw)
        if len(raw) <= LABEL_TEXT_KEPT:
            if len(_LABELS) >= LABELS_KEPT:
                _LABELS.clear()
            _LABELS[raw] = label
    return label


def _made_label(raw: bytes) -> str:
    """``raw_label``'s label, made: the text is strict JSON (the scan read it), so a string without an escape
    is its bytes and an integer is ``int``'s; the rest (escapes, fractions) goes through ``_loads``."""
    if raw in _LITERALS:
        return group_label(_LITERALS[raw])
    if raw[:1] == b'"' and b"\\" not in raw:
        return group_label(raw[1:-1].decode())
    if _INTEGER.fullmatch(raw):
        return group_label(int(raw))
    return group_label(_loads(raw))


def group_labels(spec: FactSpec, path: str) -> tuple[tuple[GroupPath, ...], Callable[[bytes], str]] | None:
    """What the compiled scan needs to read each line's group (``fastpath.scan_kinds``), when the budget groups
    and the lines of ``path`` are not parsed anyway (``FactSpec.every_line``)."""
    return (spec.group_paths, raw_label) if spec.group_paths and not spec.every_line(path) else None


class ChunkFacts(Record):
    """The budget's view of one chunk: ``states`` (a byte per line) and ``details`` (line index -> Detail)
    of the lines it looked into; line numbers count from ``first_line`` in ``path``."""

    __slots__ = ("path", "first_line", "states", "details", "bad", "identities", "groups")  # noqa: RUF023
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        path: str,
        first_line: int,
        states: bytes,
        details: dict[int, Detail],
        bad: tuple[list[int], bytes, list[str | None]] | None = None,
        identities: list[tuple[int, int] | None] | None = None,
        groups: list[Groups] | None = None,
    ) -> None:
        self.path = path
        self.first_line = first_line
        self.states = states
        self.details = details  # every line's, when the budget groups or identifies rollouts
        # Otherwise the masked and failed lines alone, in order: their line indices, budget states, kinds.
        self.bad = bad
        # With ``bad``, every line's identity when a failures file is merged into the file by identity.
        self.identities = identities
        # With ``bad`` and group paths: each line's group, as (ids, combinations, firsts) (``Groups``) per chunk
        # scanned (chunks fed together keep theirs: a combination's id is its scan's).
        self.groups = groups

    def __reduce__(self) -> tuple[Any, ...]:
        fields = (self.path, self.first_line, self.states, self.details, self.bad, self.identities, self.groups)
        return (ChunkFacts, fields)


def _text_rules() -> frozenset[str]:
    from verify_contract.contract import contract_model
    from verify_contract.generated import LATEST_VERSION

    return frozenset(rule["id"] for rule in contract_model(LATEST_VERSION).rules if rule.get("scope") == "text")


TEXT_RULES = _text_rules()
"""The rules of a JSON-text defect (the model's ``text`` scope): such a line has no document to read."""
REREAD_MEMBER = b'"' + FAILURE_CLASS_KEY.encode() + b'"'
"""A line without a failure-kind string that names this member takes its kind from it (``budget.kind_of``):
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

    Only masked and failed lines are looked into, and their failure kinds come from the pre-check
    (``fastpath.scan_kinds``): a line is parsed only where it could not say (an escape, a failures-file member,
    a line it did not read whole). Groups come from the pre-check too (each line's group member, labelled once
    per distinct value). With identities (``FactSpec.every_line``), every line is parsed; a file merged with
    its failures file by identity has its lines' identities parsed (measured in benchmarks/budget.py).
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
    if spec.every_line(path):
        return _every_line(chunk, bytes(states), first_line, path, spec)
    bad, labels, bad_states, unknown = fastpath.gather(states, _BAD_STATES, lines.kinds)
    if unknown:  # lines the pre-check did not read whole nor key, or whose kind it left to a parse
        spans = {index: (start, stop) for index, start, stop, _ in others}
        spans.update((index, (start, stop)) for index, start, stop in lines.reread)
        for at, label in enumerate(labels):
            if label is None:
                labels[at] = _unread_kind(view, spans[bad[at]], lines.unkeyed.get(bad[at]))
    identities = _identities(chunk, states) if path in spec.ordered else None
    groups = [_groups(chunk, states, lines.groups, spec.group_paths)] if spec.group_paths else None
    return ChunkFacts(
        path, first_line, bytes(states), {}, bad=(bad, bad_states, labels), identities=identities, groups=groups
    )


def _identities(chunk: bytes | memoryview, states: bytearray) -> list[tuple[int, int] | None]:
    """Each line's identity (as ``budget.identity_of`` takes it; None for a blank line, a row without one or a
    line that is no JSON text), for the merge with a failures file (SPEC 11.1): every line parsed, the cost of
    the order (benchmarks/budget.py)."""
    lines = bytes(chunk).split(b"\n")
    return [_pair(_loads(lines[index])) if state else None for index, state in enumerate(states)]


_TASK, _ROLLOUT = IDENTITY_KEYS


def _pair(row: Any) -> tuple[int, int] | None:
    if type(row) is not dict:
        return None
    task, rollout = row.get(_TASK), row.get(_ROLLOUT)
    return (task, rollout) if type(task) is int and type(rollout) is int else None  # an int, not a bool


def _combo_numbers(combos: list[tuple[str, ...]]) -> dict[tuple[str, ...], int]:
    """Each group combination's number in a chunk's list (the first, where the scan listed one twice)."""
    return {combo: at for at, combo in reversed(list(enumerate(combos)))}


def _combo_of(
    known: dict[tuple[str, ...], int],
    combos: list[tuple[str, ...]],
    firsts: list[int],
    group: tuple[str, ...],
    index: int,
) -> int:
    """The number of line ``index``'s group combination, listed (with the line as its first) if it is new, and
    its first line moved up if this one comes earlier: for the lines the compiled scan did not number."""
    at = known.get(group)
    if at is None:
        at = known[group] = len(combos)
        combos.append(group)
        firsts.append(index)
    elif firsts[at] > index:
        firsts[at] = index
    return at


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
        known = _combo_numbers(combos)
        absent = (ABSENT_GROUP,) * len(paths)
        for index, line in unread:
            row = _loads(line)
            group = group_of(row, paths) if isinstance(row, dict) else absent
            line_ids[index] = _combo_of(known, combos, firsts, group, index)
    return bytes(ids), combos, firsts


def _unread_kind(view: memoryview, span: tuple[int, int], outcome: Outcome | None) -> str:
    """The kind of a masked or failed line the pre-check gave none: none for a JSON-text defect (no document,
    SPEC 11.1, even where a lenient parser would read one), else the parsed document's."""
    if outcome is not None and not TEXT_RULES.isdisjoint(finding.rule for finding in outcome.findings):
        return NO_KIND
    row = _loads(view[span[0] : span[1]])
    return (kind_of(row) if isinstance(row, dict) else None) or NO_KIND


def _every_line(chunk: bytes | memoryview, states: bytes, first_line: int, path: str, spec: FactSpec) -> ChunkFacts:
    """Every line's kind, group and identity (``--group-by``, ``--expected``, the retry list): each parsed."""
    details: dict[int, Detail] = {}
    lines = bytes(chunk).split(b"\n")
    for index, state in enumerate(states):
        if not state:
            continue
        row = _loads(lines[index])
        if isinstance(row, dict):
            kind = kind_of(row) if state != USABLE else None
            identified = spec.identities or path in spec.ordered
            details[index] = (kind, group_of(row, spec.group_paths), identity_of(row) if identified else None)
        else:
            details[index] = (None, (ABSENT_GROUP,) * len(spec.group_paths), None)
    return ChunkFacts(path, first_line, states, details)


# -- failures files ------------------------------------------------------------------------------------------
# Where they are: _failures_files (a plain check looks for them without importing the budget).


class FailuresFileRead(Record):
    """A failures file's counts as the budget counts it: every JSON-object row a failed rollout."""

    __slots__ = ("rows", "blank", "unreadable", "classes", "findings", "unlisted", "error")  # noqa: RUF023
    __hash__ = None  # type: ignore[assignment]

    def __init__(self) -> None:
        self.rows = 0
        self.blank = 0
        self.unreadable = 0
        self.classes: dict[str, int] = {}  # at most MAX_DISTINCT, then OTHER
        # Taken by the report as they come (add_failures_file_findings); past what a report lists, only counted: a
        # file of garbage lines read in one go must not grow memory.
        self.findings: list[tuple[int, Finding]] = []
        self.unlisted = 0
        self.error: str | None = None  # the file could not be opened when the merge reached it

    def counts(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "blank": self.blank,
            "unreadable": self.unreadable,
            "classes": dict(sorted(self.classes.items())),
        }


FailureRow = tuple[int, "str | None", tuple[str, ...], "tuple[Any, ...] | None"]
"""(line, failure kind, group, identity) of a failures-file row."""


class FailuresRows:
    """The rows of one failures file, read one at a time as the merge asks (SPEC 11.1), each counted into
    ``read``: a JSON object is a failed attempt; a line that is not one is a ``budget-sidecar-unreadable``
    finding and no rollout, so the lines add up. ``lines``: (line number, bytes) in file order."""

    def __init__(
        self, path: str, lines: Iterator[tuple[int, bytes]], group_paths: tuple[GroupPath, ...], read: FailuresFileRead
    ) -> None:
        self.path = path
        self.read = read
        self._lines = lines
        self._group_paths = group_paths
        self._head: FailureRow | None = None
        self._done = False

    def head(self) -> FailureRow | None:
        """The next row, not taken (None: none left)."""
        while self._head is None and not self._done:
            taken = next(self._lines, None)
            if taken is None:
                self._done = True
            else:
                self._head = self._row(*taken)
        return self._head

    def take(self) -> FailureRow | None:
        row = self.head()
        self._head = None
        return row

    def _row(self, number: int, line: bytes) -> FailureRow | None:
        read = self.read
        if not line.strip():
            read.blank += 1
            return None
        try:
            row = json.loads(line)
        except ValueError as error:
            row, problem = None, f"not JSON ({str(error)[:80]})"
        else:
            problem = "not a JSON object"
        if not isinstance(row, dict):
            read.unreadable += 1
            if len(read.findings) >= DEFAULT_MAX_FINDINGS:
                read.unlisted += 1
                return None
            message = f"a failures-file line is {problem}: not counted as a rollout"
            read.findings.append((number, Finding(SIDECAR_UNREADABLE, Severity.WARNING, message)))
            return None
        read.rows += 1
        failure_class = row.get(FAILURE_CLASS_KEY)
        label = failure_class if isinstance(failure_class, str) else "(no class)"
        if label not in read.classes and len(read.classes) >= MAX_DISTINCT:
            label = OTHER  # capped as groups are: a class per row must not grow memory or the report
        read.classes[label] = read.classes.get(label, 0) + 1
        return (number, kind_of(row), group_of(row, self._group_paths), identity_of(row))


def numbered_lines(stream: Iterable[bytes], first: int = 1) -> Iterator[tuple[int, bytes]]:
    return enumerate((line.rstrip(b"\r\n") for line in stream), first)


def _source_lines(source: Source) -> Iterator[bytes]:
    """A failures file's lines, read as any input is (a local file or a URL, plain or gzip) in bounded chunks of
    whole lines; raises ``InputError`` naming it."""
    from verify_contract.check._inputs import line_views

    for view in line_views(source):
        yield from bytes(view).splitlines()


def unreadable(source: Source, error: OSError) -> str:
    """One line for a failures file that cannot be read (an ``InputError``'s text already names the input)."""
    from verify_contract.check._inputs import describe_error
    from verify_contract.check._source import InputError

    reason = str(error).removeprefix(f"{source.name}: ") if isinstance(error, InputError) else ""
    return f"{source.name}: cannot read the failures file: {reason or describe_error(error)}"


def open_failures(source: Source, group_paths: tuple[GroupPath, ...], read: FailuresFileRead) -> FailuresRows:
    """A failures file's rows for the merge, opened at its first row and closed at its last, so a run of many
    main files holds one failures file open at a time; a file that cannot be read then is ``read.error``."""

    def lines() -> Iterator[tuple[int, bytes]]:
        try:
            yield from numbered_lines(_source_lines(source))
        except OSError as error:
            read.error = unreadable(source, error)

    return FailuresRows(source.name, lines(), group_paths, read)


def first_identity(source: Source) -> tuple[Any, ...] | None:
    """The identity of a failures file's first row (its first line that is a JSON object), None when that
    row has none or there is no row; ``OSError`` when the file cannot be read."""
    for line in _source_lines(source):
        try:
            row = json.loads(line) if line.strip() else None
        except ValueError:
            continue
        if isinstance(row, dict):
            return identity_of(row)
    return None


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


def _lines_of(facts: ChunkFacts, start: int, stop: int) -> ChunkFacts:
    """Lines [start, stop) of a chunk's facts (with ``bad``), without identities."""
    assert facts.bad is not None
    indices, states, labels = facts.bad
    low, high = bisect_left(indices, start), bisect_left(indices, stop)
    shifted = [index - start for index in indices[low:high]]
    return ChunkFacts(
        facts.path,
        facts.first_line + start,
        facts.states[start:stop],
        {},
        bad=(shifted, states[low:high], labels[low:high]),
    )


BATCH_LINES = 1 << 16
"""Consecutive chunks of one file wait and are fed to the budget together, up to this many lines: a
``record_run`` costs tens of microseconds whatever its length (measured in benchmarks/budget.py)."""


def budget_run(budget: FailureBudget, on_event: Callable[[BudgetEvent], None] | None = None) -> BudgetRun:
    """A run's ``BudgetRun`` over ``budget``: each line's identity read when the budget keeps identities
    (``expected``, a retry list), its groups by the budget's group paths."""
    return BudgetRun(budget, FactSpec(budget.group_paths, budget.track_identities), on_event)


class BudgetRun:
    """One ``check`` run's budget: the ``FailureBudget`` fed in input order, and the failures files read.

    A main file's failures file is merged into its rows as they are fed (SPEC 11.1, ``budget.failure_row_first``:
    by identity where both rows carry one, else main file first), a row at a time, so the two are never held
    whole; ``merge_failures`` attaches them, ``finish_failures`` feeds what is left of them at the end.
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
        self._events: list[BudgetEvent] = []  # the first EVENTS_KEPT
        self.events_not_kept: dict[str, dict[str, int]] = {}  # rule -> level -> events past the cap
        self._reads: dict[str, FailuresFileRead] = {}  # failures file -> its counts so far
        self._waiting: list[ChunkFacts] = []
        self._waiting_lines = 0
        # The merge: the main inputs in order, the failures file attached to some, and those of none.
        self._mains: list[str] = []
        self._position = 0  # in _mains: the main input being fed
        self._attached: dict[str, FailuresRows] = {}
        self._alone: list[FailuresRows] = []
        self._merging: FailuresRows | None = None

    @property
    def budget(self) -> FailureBudget:
        self.flush()
        return self._budget

    @property
    def events(self) -> list[BudgetEvent]:
        """The run's first ``EVENTS_KEPT`` budget events (``events_not_kept`` counts the others)."""
        self.flush()
        return self._events

    @property
    def events_total(self) -> int:
        return self.budget.warnings + self.budget.breaches

    @property
    def expected(self) -> int | tuple[int, int] | None:
        return self._budget.expected

    @property
    def failures_files_read(self) -> dict[str, dict[str, Any]]:
        """Each failures file's counts so far."""
        return {path: read.counts() for path, read in self._reads.items()}

    def failures_reads(self) -> list[tuple[str, FailuresFileRead]]:
        return list(self._reads.items())

    def failures_file_read(self, path: str) -> FailuresFileRead:
        """The counts of a failures file (one per path, however often its rows are attached)."""
        return self._reads.setdefault(path, FailuresFileRead())

    def merge_failures(self, mains: list[str], attached: dict[str, FailuresRows], alone: list[FailuresRows]) -> None:
        """Failures-file rows for the merge: ``attached`` (main input name -> rows) merged into their main
        file's rows as they are fed, ``alone`` (no main input) after every main input; ``mains``: the main
        inputs' names in input order (a main file's failures rows are all fed before the next main's rows)."""
        self.flush()
        self._mains, self._position, self._attached, self._alone = list(mains), 0, dict(attached), list(alone)
        self._merging = None

    def finish_failures(self) -> None:
        """Feed what is left of every failures file, in input order (the end of the main inputs)."""
        self.flush()
        self._reach(len(self._mains))
        for rows in self._alone:
            self._feed_failures(rows, None, until_end=True)
        self._alone = []

    def _reach(self, position: int) -> None:
        """The main inputs before ``position`` are over: the rest of their failures rows, in order."""
        if self._merging is not None:
            self._feed_failures(self._merging, None, until_end=True)
            self._merging = None
        while self._position < position:
            rows = self._attached.pop(self._mains[self._position], None)
            if rows is not None:
                self._feed_failures(rows, None, until_end=True)
            self._position += 1

    def _enter(self, path: str) -> None:
        """Facts of ``path`` arrive: earlier main inputs are over; its own failures rows start merging."""
        if self._position < len(self._mains) and self._mains[self._position] == path:
            if self._merging is None:
                self._merging = self._attached.pop(path, None)
            return
        try:
            position = self._mains.index(path, self._position)
        except ValueError:
            return  # not a main input with a place in the merge (a --follow poll, a test's own feed)
        self._reach(position)
        self._merging = self._attached.pop(path, None)

    def _feed_failures(self, rows: FailuresRows, before: tuple[Any, ...] | None, until_end: bool = False) -> None:
        """Failures rows up to the main row of identity ``before`` (all of them with ``until_end``)."""
        budget = self._budget
        identified = budget.track_identities
        events: list[BudgetEvent] = []
        while True:
            row = rows.head()
            if row is None or not (until_end or failure_row_first(before, row[3])):
                break
            rows.take()
            line, kind, group, identity = row
            events += budget.record(FAILED, kind, group, (rows.path, line), identity if identified else None, True)
        self._report(events)

    def feed(self, facts: ChunkFacts) -> None:
        """A chunk's facts, in input order: a chunk that continues the waiting ones waits with them."""
        if facts.bad is None or facts.identities is not None:
            self.flush()
            self._enter(facts.path)
            self._feed(facts)
            return
        if self._waiting:
            last = self._waiting[-1]
            if last.path != facts.path or last.first_line + len(last.states) != facts.first_line:
                self.flush()
        if not self._waiting:
            self._enter(facts.path)
        self._waiting.append(facts)
        self._waiting_lines += len(facts.states)
        if self._waiting_lines >= BATCH_LINES:
            self.flush()

    def flush(self) -> None:
        """Feed the waiting chunks to the budget (their events are reported now)."""
        if not self._waiting:
            return
        waiting, self._waiting, self._waiting_lines = self._waiting, [], 0
        # The feed makes lists as long as the chunks (offsets, each group's picks) and no reference cycle: a
        # collection during it walks those young lists again at every threshold (with --group-by, 0.04-0.09 s
        # of a check of 1,000,000 lines), so the collector waits for its end.
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._feed(waiting[0] if len(waiting) == 1 else _joined(waiting))
        finally:
            if collecting:
                gc.enable()

    def _feed(self, facts: ChunkFacts) -> None:
        if facts.bad is not None and facts.identities is not None and self._merging is not None:
            self._feed_merged(facts, self._merging, facts.identities)
            return
        budget = self._budget
        states, details, path, first = facts.states, facts.details, facts.path, facts.first_line
        if facts.groups is not None:  # grouped lines the scan labelled: a list at a time
            self._report(self._feed_groups(facts))
            return
        if facts.bad is not None:
            # One pass over the masked and failed lines; usable ones are counted, not visited. (A file merged
            # with its failures file by identity comes cut where failures rows go, ``_feed_merged``.)
            indices, bad_states, labels = facts.bad
            blanks = [match.start() for match in _BLANKS.finditer(states)] if BLANK_LINE in states else []
            # A rollout's offset in the run is its line index less the blank lines before it.
            offsets = list(map(sub, indices, map(bisect_right, repeat(blanks), indices))) if blanks else indices

            def where_of(offset: int) -> tuple[str, int]:
                index = offset  # the line of the offset-th rollout: the offset plus the blank lines before it
                while index != offset + bisect_right(blanks, index):
                    index = offset + bisect_right(blanks, index)
                return (path, first + index)

            # check's labels hold no None (chunk_facts labels every line)
            self._report(
                budget.record_run(len(states) - len(blanks), offsets, bad_states, labels, where_of, labelled=True)
            )
            return
        absent = (ABSENT_GROUP,) * len(self.spec.group_paths)
        identified = budget.track_identities
        merging = self._merging
        for index, byte in enumerate(states):
            if not byte:
                continue
            kind, group, identity = details.get(index, (None, absent, None))
            if merging is not None:
                self._feed_failures(merging, identity)
            where = (path, first + index)
            self._report(budget.record(byte - 1, kind, group, where, identity if identified else None))

    def _feed_merged(self, facts: ChunkFacts, rows: FailuresRows, identities: list[tuple[int, int] | None]) -> None:
        """A chunk's lines (the bulk way) with failures rows merged in by identity: the lines up to each place
        a failures row goes are fed as one run, then the failures rows that go there."""
        start = 0
        end = len(identities)
        while start < end:
            head = rows.head()
            if head is None or head[3] is None:  # none left, or one without identity: after the main file
                break
            at = start
            while at < end and not failure_row_first(identities[at], head[3]):
                at += 1
            if at > start:
                self._feed(_lines_of(facts, start, at))
            if at < end:
                self._feed_failures(rows, identities[at])
            start = at
        if start < end:
            self._feed(_lines_of(facts, start, end))

    def _report(self, events: list[BudgetEvent]) -> None:
        for event in events:
            if len(self._events) < EVENTS_KEPT:
                self._events.append(event)
            else:
                by_level = self.events_not_kept.setdefault(event.rule, {})
                by_level[event.level] = by_level.get(event.level, 0) + 1
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
        sizes = self._block_sizes(states, facts.groups, starts, slots, scopes) if self._budget.track_blocks else None
        return self._budget.record_groups(
            count, offsets, bad_states, labels, where_of, groups, nth, labelled=True, block_sizes=sizes
        )

    def _block_sizes(
        self,
        states: bytes,
        chunks: list[Groups],
        starts: list[int],
        slots: list[list[int]],
        scopes: dict[tuple[str, ...], int],
    ) -> dict[tuple[str, ...], Counter[int]]:
        """Each group's rollouts in each of the stream's blocks, for a plot (``track_blocks``): a pass over the
        lines, paid only with ``--plot``."""
        budget = self._budget
        window, ordinal = budget.window, budget.total.seen  # the stream ordinal before the chunks, less one
        by_slot: list[Counter[int]] = [Counter() for _ in scopes]
        for part, (ids, _, _) in enumerate(chunks):
            line_ids, slot_of = memoryview(ids).cast("I"), slots[part]
            for index, state in enumerate(states[starts[part] : starts[part + 1]]):
                if state:
                    by_slot[slot_of[line_ids[index]]][ordinal // window] += 1
                    ordinal += 1
        return {group: by_slot[slot] for group, slot in scopes.items()}

    def breached(self) -> bool:
        return self.budget.breached

    def retry_rows(self) -> Iterator[dict[str, Any]]:
        return self.budget.retry_rows()

    def summary(self) -> dict[str, Any]:
        data = self.budget.summary()
        data["events"] = [event.as_dict() for event in self.events]
        data["events_not_kept"] = self.events_not_kept
        data["failures_files"] = self.failures_files_read
        return data


__all__ = [
    "BudgetRun",
    "ChunkFacts",
    "FactSpec",
    "FailuresRows",
    "chunk_facts",
    "first_identity",
    "open_failures",
]
