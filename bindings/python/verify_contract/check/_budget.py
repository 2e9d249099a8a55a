"""``check``'s failure budget (SPEC 11): what each chunk tells the budget, failures files, and the run.

A chunk's facts are one state byte per line (blank, usable, masked, failed), from the pre-check's status
bytes and the judged outcomes, plus, for the lines the budget must look into, their failure kind, group and
identity. Facts travel in the chunk's ``Tally`` (``--jobs`` workers send them back with it) and are fed to
one ``FailureBudget`` in input order by the parent, so any partitioning gives the same budget.
"""

from __future__ import annotations

import json
import os
import re
from bisect import bisect_right
from itertools import repeat
from operator import sub

from verify_contract.budget import (
    ABSENT_GROUP,
    FAILED,
    MASKED,
    NO_KIND,
    OK,
    FailureBudget,
    GroupPath,
    _kind_of,
    group_of,
    identity_of,
)
from verify_contract.check import _fastpath as fastpath
from verify_contract.findings import Finding, Severity
from verify_contract.records import FrozenRecord, Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from verify_contract.budget import BudgetEvent
    from verify_contract.check._fastpath import MaskedKind, Other
    from verify_contract.check._outcome import Outcome

SIDECAR_SUFFIX = "_failures.jsonl"
"""NeMo Gym's failures file beside ``<stem>.jsonl`` is ``<stem>_failures.jsonl`` (SPEC 11.1)."""

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


class ChunkFacts(Record):
    """The budget's view of one chunk: ``states`` (a byte per line) and ``details`` (line index -> Detail)
    of the lines it looked into; line numbers count from ``first_line`` in ``path``."""

    __slots__ = ("path", "first_line", "states", "details", "sidecar", "bad")  # noqa: RUF023
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        path: str,
        first_line: int,
        states: bytes,
        details: dict[int, Detail],
        sidecar: bool = False,
        bad: tuple[list[int], bytes, list[str]] | None = None,
    ) -> None:
        self.path = path
        self.first_line = first_line
        self.states = states
        self.details = details  # every line's, when the budget groups or identifies rollouts
        self.sidecar = sidecar
        # Otherwise the masked and failed lines alone, in order: their line indices, budget states, kinds.
        self.bad = bad

    def __reduce__(self) -> tuple[Any, ...]:
        return (ChunkFacts, (self.path, self.first_line, self.states, self.details, self.sidecar, self.bad))


def _text_rules() -> frozenset[str]:
    from verify_contract.contract._model import contract_model
    from verify_contract.generated import LATEST_VERSION

    return frozenset(rule["id"] for rule in contract_model(LATEST_VERSION).rules if rule.get("scope") == "text")


TEXT_RULES = _text_rules()
"""The rules of a JSON-text defect (the model's ``text`` scope): such a line has no document to read."""
_FAILURE_CLASS_NEEDLE = b'"_ng_failure_class"'
KIND_CACHE_ENTRIES = 4096
_KIND_CACHES: dict[str, dict[bytes, str | None] | None] = {}


def _kind_cache(version: str) -> dict[bytes, str | None] | None:
    """Kinds by memo key, for a version whose pre-check key holds the failure kind's raw value (the kind is
    a role field there); None where it does not (then every line is read)."""
    if version not in _KIND_CACHES:
        from verify_contract.contract._model import contract_model

        _KIND_CACHES[version] = {} if contract_model(version).role("failure_kind") is not None else None
    return _KIND_CACHES[version]


def _line_kind(line: memoryview, key: bytes | None, status: int, cache: dict[bytes, str | None] | None) -> str | None:
    """The failure kind of a strict-JSON line the pre-check handed on. Lines with one memo key have the same
    raw failure kind (a role field's value is part of the key), so it is read once per key, unless the line
    may carry ``_ng_failure_class`` (the kind when ``failure_kind`` is missing, and not part of the key)."""
    cacheable = cache is not None and key is not None and status == fastpath.STATUS_CONTRACT
    if cacheable and key in cache:  # type: ignore[operator]
        return cache[key]  # type: ignore[index]
    text = bytes(line)
    row = _loads(text)
    kind = _kind_of(row) if isinstance(row, dict) else None
    if cacheable and _FAILURE_CLASS_NEEDLE not in text and len(cache) < KIND_CACHE_ENTRIES:  # type: ignore[arg-type]
        cache[key] = kind  # type: ignore[index]
    return kind


def _loads(line: bytes | memoryview) -> Any:
    import orjson

    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


def chunk_facts(
    chunk: bytes | memoryview,
    statuses: bytes,
    others: list[Other],
    masked_kinds: list[MaskedKind],
    unsettled: dict[int, Outcome],
    first_line: int,
    path: str,
    spec: FactSpec,
    version: str,
) -> ChunkFacts:
    """The facts of a chunk the pre-check scanned (``statuses``), with the outcomes of the lines it handed on.

    Without groups or identities only masked and failed lines are looked into: a clean masked line's kind
    comes from the pre-check (``masked_kinds``, no parse), a line it handed on is parsed from its span in
    ``others``. With them, every line is parsed (measured in benchmarks/budget.py).
    """
    states = bytearray(statuses.translate(STATUS_STATES))
    details: dict[int, Detail] = {}
    view = chunk if isinstance(chunk, memoryview) else memoryview(chunk)
    if not spec.every_line:
        kinds: dict[int, str] = {
            index: str(view[start:stop], "ascii") if start >= 0 else NO_KIND for index, start, stop in masked_kinds
        }
        cache = _kind_cache(version)
        judged: dict[int, tuple[int, bool]] = {}  # id(outcome) -> (state byte, a JSON-text defect?)
        for index, start, stop, key in others:
            outcome = unsettled[index]
            known = judged.get(id(outcome))
            if known is None:
                state = (MASKED_LINE if outcome.masked else USABLE) if outcome.valid else FAILED_LINE
                text = state == FAILED_LINE and any(f.rule in TEXT_RULES for f in outcome.findings)
                known = judged[id(outcome)] = (state, text)
            state, text = known
            states[index] = state
            if state != USABLE:  # a JSON-text defect has no single document, so no kind (SPEC 11.1)
                kinds[index] = (
                    NO_KIND if text else (_line_kind(view[start:stop], key, statuses[index], cache) or NO_KIND)
                )
        indices = sorted(kinds)
        line_states = bytes(map(states.__getitem__, indices)).translate(_LINE_TO_BUDGET)
        labels = list(map(kinds.__getitem__, indices))
        return ChunkFacts(path, first_line, bytes(states), {}, bad=(indices, line_states, labels))
    for index, outcome in unsettled.items():
        states[index] = (MASKED_LINE if outcome.masked else USABLE) if outcome.valid else FAILED_LINE
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
    return ChunkFacts(path, first_line, bytes(states), details)


# -- failures files ------------------------------------------------------------------------------------------
def sidecar_of(file: str) -> str | None:
    """The failures file beside a main output file, if there is one: ``out.jsonl`` -> ``out_failures.jsonl``."""
    base = file[: -len(".jsonl")] if file.endswith(".jsonl") else None
    if base is None or base.endswith(SIDECAR_SUFFIX[: -len(".jsonl")]):
        return None
    candidate = base + SIDECAR_SUFFIX
    return candidate if os.path.isfile(candidate) else None


def is_sidecar(file: str) -> bool:
    return file.endswith(SIDECAR_SUFFIX)


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
    from verify_contract.budget import FAILURE_CLASS_KEY

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
class BudgetRun:
    """One ``check`` run's budget: the ``FailureBudget`` fed in input order, and the failures files read."""

    def __init__(
        self,
        budget: FailureBudget,
        spec: FactSpec,
        on_event: Callable[[BudgetEvent], None] | None = None,
    ) -> None:
        self.budget = budget
        self.spec = spec
        self.on_event = on_event
        self.events: list[BudgetEvent] = []
        self.sidecars: dict[str, dict[str, Any]] = {}

    @property
    def expected(self) -> int | tuple[int, int] | None:
        return self.budget.expected

    def feed(self, facts: ChunkFacts) -> None:
        budget = self.budget
        states, details, path, first = facts.states, facts.details, facts.path, facts.first_line
        if not self.spec.every_line:
            # One pass over the masked and failed lines; usable ones are counted, not visited.
            bad = facts.bad
            if bad is None:  # a failures file's facts: every row listed in details
                rows = [index for index, byte in enumerate(states) if byte]
                kinds = [details[index][0] or NO_KIND for index in rows]
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

            events = budget.record_run(len(states) - len(blanks), offsets, bad_states, labels, where_of)
        else:
            events = []
            absent = (ABSENT_GROUP,) * len(self.spec.group_paths)
            for index, byte in enumerate(states):
                if not byte:
                    continue
                kind, group, identity = details.get(index, (None, absent, None))
                events += budget.record(byte - 1, kind, group, (path, first + index), identity, facts.sidecar)
        for event in events:
            self.events.append(event)
            if self.on_event is not None:
                self.on_event(event)

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
