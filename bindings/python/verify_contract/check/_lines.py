"""One chunk of JSONL lines through ``check``, top-down: the pre-check settles the clean lines; every other
line is judged once per memo key (the composition shortcut for strict-JSON lines, the reference for the
rest) and the outcome is counted for every line sharing the key."""

from __future__ import annotations

import operator
import sys
from collections import Counter

from verify_contract.check import _fastpath as fastpath
from verify_contract.check._report import DEFAULT_MAX_FINDINGS, Tally
from verify_contract.contract import DEFAULT_PROFILE, LATEST_VERSION, Contract, Profile, resolve_contract
from verify_contract.records import FrozenRecord

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from verify_contract.check._budget import FactSpec
    from verify_contract.check._outcome import Outcome


class CheckOptions(FrozenRecord):
    """How ``check`` runs: the contract (version and profile, resolved here, once per run), how many findings
    to list, the fast path or the reference alone (``fast=False``: every line through the reference, for the
    differential test and for distrust), worker processes, and what a failure budget needs of each line
    (``facts``, SPEC 11; None: no budget). An unknown version or profile is a ``ValueError`` here."""

    __slots__ = ("contract", "max_findings", "fast", "jobs", "facts")  # noqa: RUF023 (constructor order)
    contract: Contract
    max_findings: int
    fast: bool
    jobs: int
    facts: FactSpec | None

    def __init__(
        self,
        version: str = LATEST_VERSION,
        profile: Profile = DEFAULT_PROFILE,
        max_findings: int = DEFAULT_MAX_FINDINGS,
        fast: bool = True,
        jobs: int = 1,
        facts: FactSpec | None = None,
    ) -> None:
        self._freeze(resolve_contract(version, profile), max_findings, fast, jobs, facts)

    @property
    def version(self) -> str:
        return self.contract.version

    @property
    def profile(self) -> Profile:
        return self.contract.profile

    def __reduce__(self) -> tuple[type[CheckOptions], tuple[Any, ...]]:
        return CheckOptions, (self.version, self.profile, self.max_findings, self.fast, self.jobs, self.facts)


MEMO_ENTRIES = 4096
"""Outcomes remembered per contract (version and profile); past this, new keys take the reference path every
time, so adversarial input (a new failure kind on every line) costs time, not memory."""
_OUTCOMES: dict[Contract, dict[bytes | None, Outcome]] = {}
_KEY = operator.itemgetter(3)


def outcome_memo(contract: Contract) -> dict[bytes | None, Outcome]:
    memo = _OUTCOMES.get(contract)
    if memo is None:
        memo = _OUTCOMES[contract] = {}
    return memo


def clear_caches() -> None:
    """Forget the memoised outcomes and findings, and the URL reader's spare buffers (benchmarks measure a cold
    pass, as a new process makes it, with it)."""
    compose = sys.modules.get("verify_contract.check._compose")  # nothing cached if it was never imported
    if compose is not None:
        compose.clear_caches()
    remote = sys.modules.get("verify_contract.check._remote")
    if remote is not None:
        remote.clear_spare_blocks()
    _OUTCOMES.clear()


# Each way of judging a line is imported by the first chunk that needs it: a clean run loads none of them, a
# run whose defects are all keyed text defects or contract defects the wording table covers never loads the
# reference (jsonschema, referencing: about 90 ms; tests/check/test_check_startup.py).
_CONTRACT = bytes([fastpath.STATUS_CONTRACT])
_TEXT = bytes([fastpath.STATUS_TEXT])


def _text_events() -> Callable[[bytes], Outcome | None]:
    from verify_contract.check._text_events import text_event_outcome

    return text_event_outcome


def _contract_lines() -> Callable[[memoryview, Contract], Outcome]:
    from verify_contract.check._compose import contract_outcome

    return contract_outcome


def reference_line(line: bytes | memoryview, contract: Contract) -> Outcome:
    """The reference's outcome for one line (``_reference.reference_line``, imported by the first such line)."""
    from verify_contract.check._reference import reference_line

    return reference_line(line, contract)


def _unused(*args: object) -> Outcome:
    raise AssertionError(f"no line of this status in the chunk: {args!r}")


def check_chunk(
    chunk: bytes | memoryview, first_line: int, path: str, options: CheckOptions, room: int | None = None
) -> Tally:
    """Check the lines of one chunk; line numbers start at ``first_line``.

    ``room``: how many findings to list at most (default ``options.max_findings``); a run passes what its
    capped listing still has room for, so that it does not build entries it would drop.
    """
    tally = Tally(options.max_findings if room is None else max(room, 0))
    if not isinstance(chunk, bytes) and (not options.fast or fastpath.field_table(options.contract) is None):
        chunk = bytes(chunk)  # the Python scan (no compiled pre-check) reads bytes
    # The compiled scan reads any buffer (a view into the input buffer or a mapped file): no copy.
    if options.facts is None:
        statuses, others = fastpath.scan(chunk, options.contract, options.fast)  # type: ignore[arg-type]
    else:  # a failure budget: the kinds of the lines the scan read whole too
        from verify_contract.budget import NO_KIND
        from verify_contract.check._budget import REREAD_MEMBER, group_labels

        labels = group_labels(options.facts, path)

        statuses, others, line_kinds, reread, groups = fastpath.scan_kinds(
            chunk,  # type: ignore[arg-type]
            options.contract,
            options.fast,
            REREAD_MEMBER,
            NO_KIND,
            labels,
        )
    tally.lines = len(statuses)
    tally.add_clean(statuses)
    unkeyed: dict[int, Outcome] | None = {} if options.facts is not None else None
    if not others:
        if unkeyed is not None:
            _add_facts(
                tally,
                chunk,
                LineFacts(statuses, others, line_kinds, reread, ([], []), unkeyed, groups),
                first_line,
                path,
                options,
            )
        return tally
    contract = options.contract
    memo = outcome_memo(contract)
    # A key decides the reference's outcome (fastpath, _fastscan.c): the first line with each key is judged
    # as before, the lines after it share that outcome, counted once per key with its number of lines.
    text_event = _text_events() if _TEXT in statuses else _unused
    composed = _contract_lines() if _CONTRACT in statuses else _unused
    lines_per_key = Counter(map(_KEY, others))
    lines = chunk if isinstance(chunk, memoryview) else memoryview(chunk)  # a line is judged from a view
    local: dict[bytes, Outcome] = {}  # this chunk's keys that the full memo could not take
    listed = tally.findings
    room = tally.max_findings
    for index, start, stop, key in others:
        outcome = memo.get(key)
        if outcome is None:
            outcome = local.get(key) if key is not None else None
            if outcome is None:
                status = statuses[index]
                # A NaN token or a repeated name keyed as the first defect: its finding needs no parse.
                if key is not None and status == fastpath.STATUS_TEXT:
                    outcome = text_event(key)
                if outcome is None:
                    line = lines[start:stop]  # with its terminator (whitespace to a strict JSON parser)
                    try:
                        judge = composed if status == fastpath.STATUS_CONTRACT else reference_line
                        outcome = judge(line, contract)
                    finally:
                        # Released even when judging raises (^C): a traceback's frames would keep the view,
                        # and a mapped file (--jobs) could not be closed under the error.
                        line.release()
                if key is None:
                    tally.count(outcome, 1)
                    if unkeyed is not None:
                        unkeyed[index] = outcome
                elif len(memo) < MEMO_ENTRIES:
                    memo[key] = outcome
                else:
                    local[key] = outcome
        elif len(listed) >= room:
            continue  # known, and nothing left to list
        if len(listed) < room:
            tally.list(outcome, path, first_line + index)
    for key, times in lines_per_key.items():
        if key is not None:
            tally.count(memo[key] if key in memo else local[key], times)
    if unkeyed is not None:
        keys = [key for key in lines_per_key if key is not None]
        keyed = (keys, [memo[key] if key in memo else local[key] for key in keys])
        _add_facts(
            tally,
            chunk,
            LineFacts(statuses, others, line_kinds, reread, keyed, unkeyed, groups),
            first_line,
            path,
            options,
        )
    return tally


class LineFacts(FrozenRecord):
    """What a chunk's check knows of its lines, for the failure budget: the pre-check's statuses, the lines
    it handed on, the failure kinds and groups it read (``fastpath.scan_kinds``), and the judged outcomes:
    ``keyed``, the chunk's memo keys and their outcomes (two lists in step), ``unkeyed``, those of lines without
    a key."""

    __slots__ = ("statuses", "others", "kinds", "reread", "keyed", "unkeyed", "groups")  # noqa: RUF023
    statuses: bytes
    others: list[fastpath.Other]
    kinds: fastpath.KnownKinds
    reread: list[fastpath.Span]
    keyed: tuple[list[bytes], list[Outcome]]
    unkeyed: dict[int, Outcome]
    groups: fastpath.GroupIds | None

    def __init__(
        self,
        statuses: bytes,
        others: list[fastpath.Other],
        kinds: fastpath.KnownKinds,
        reread: list[fastpath.Span],
        keyed: tuple[list[bytes], list[Outcome]],
        unkeyed: dict[int, Outcome],
        groups: fastpath.GroupIds | None = None,
    ) -> None:
        self._freeze(statuses, others, kinds, reread, keyed, unkeyed, groups)


def _add_facts(
    tally: Tally, chunk: bytes | memoryview, lines: LineFacts, first_line: int, path: str, options: CheckOptions
) -> None:
    from verify_contract.check._budget import chunk_facts

    assert options.facts is not None
    tally.facts.append(chunk_facts(chunk, lines, first_line, path, options.facts))
