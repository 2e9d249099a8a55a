"""``check``: validate JSON and JSONL inputs of verify responses, streaming, and count what was found.

Every line is judged as the reference would judge it (``jsonio.parse_json`` then ``validation.validate``).
The compiled pre-check (``fastpath``) settles the lines that are certainly valid and clean; every other
line goes through the reference itself, so verdicts, rule ids and messages are the reference's.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import operator
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache, lru_cache
from multiprocessing.pool import AsyncResult
from typing import Any

import orjson

from verify_contract import fastpath, validation
from verify_contract.findings import Finding, Severity, finding
from verify_contract.inputs import InputError, Source, chunks, read_all, resolve
from verify_contract.jsonio import parse_json
from verify_contract.mask import MaskTypeError, effective_mask
from verify_contract.schemas import declared_fields, registered_failure_kinds, schema_document
from verify_contract.validation import NAMESPACE_SEPARATOR, validate
from verify_contract.versions import DEFAULT_PROFILE, LATEST_VERSION, Profile

DEFAULT_MAX_FINDINGS = 1000
KIND_CLASSES = ("registered", "namespaced", "unregistered")

__all__ = [
    "DEFAULT_MAX_FINDINGS",
    "CheckOptions",
    "InputError",
    "LocatedFinding",
    "Outcome",
    "Report",
    "Tally",
    "check_bytes",
    "check_paths",
    "check_sources",
    "document_outcome",
    "reference_outcome",
]


@dataclass(frozen=True)
class CheckOptions:
    version: str = LATEST_VERSION
    profile: Profile = DEFAULT_PROFILE
    max_findings: int = DEFAULT_MAX_FINDINGS
    fast: bool = True
    """False: every line through the reference (for the differential test and for distrust)."""
    jobs: int = 1


@dataclass(frozen=True)
class LocatedFinding:
    path: str
    line: int | None
    finding: Finding

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, **self.finding.as_dict()}


@dataclass(frozen=True)
class Outcome:
    """What the reference says about one document, and the facts the report counts for a valid one."""

    findings: tuple[Finding, ...]
    valid: bool
    masked: bool = False
    legacy: bool = False
    kind: str | None = None


def _parse(raw: bytes) -> tuple[Any, Finding | None]:
    try:
        parsed = parse_json(raw)
    except ValueError as error:  # int() refuses integers of more than 4300 digits
        return None, finding("json-non-finite", f"a number is too large for any JSON implementation ({error})")
    return parsed.document, parsed.finding


# The schema files never change within a process; these look-ups read them (and list a directory).
_declared = lru_cache(maxsize=None)(declared_fields)
_registered = lru_cache(maxsize=None)(registered_failure_kinds)


def _kind_class(kind: Any, version: str) -> str | None:
    if "failure_kind" not in _declared(version) or not isinstance(kind, str):
        return None
    if NAMESPACE_SEPARATOR in kind:
        return "namespaced"
    return "registered" if kind in _registered(version) else "unregistered"


def document_outcome(document: Any, version: str, profile: Profile) -> Outcome:
    """The reference verdict on a parsed document, with the counted facts."""
    result = validate(document, version, profile)
    return _facts(document, tuple(result.findings), version)


def _facts(document: Any, findings: tuple[Finding, ...], version: str) -> Outcome:
    if any(f.severity is Severity.ERROR for f in findings):
        return Outcome(findings, False)
    masked = False
    with contextlib.suppress(MaskTypeError):  # valid at a version that does not type the mask: no mask to count
        masked = effective_mask(document)
    config = document.get("instance_config")
    legacy = (
        "instance_config" in _declared(version)
        and isinstance(config, dict)
        and isinstance(config.get("mask_sample"), bool)
    )
    return Outcome(findings, True, masked, legacy, _kind_class(document.get("failure_kind"), version))


def reference_outcome(raw: bytes, version: str, profile: Profile) -> Outcome:
    """The reference path for one line or document text."""
    document, problem = _parse(raw)
    if problem is not None:
        return Outcome((problem,), False)
    return document_outcome(document, version, profile)


# The schema constrains these top-level members only, each on its own (no keyword relates two of them),
# and every other member is free: the schema findings of a document are the root's `required` findings
# followed, in member-name order, by each member's own findings (validation sorts them by path).
_MEMBERS = ("failure_kind", "failure_reason", "instance_config", "mask_sample", "response", "responses_create_params")
_KEY = operator.itemgetter(3)
_VALID_BASE: dict[Profile, dict[str, Any]] = {
    "core": {"reward": 0},
    "gym": {"reward": 0, "responses_create_params": {}, "response": {"output": []}},
}


def _shape(member: str, value: Any) -> Any:
    """The part of a member's value its schema findings can depend on (the schema is shallow)."""
    if isinstance(value, dict):
        if member == "responses_create_params":
            return {}
        if member == "response":
            return {"output": [] if isinstance(value["output"], list) else value["output"]} if "output" in value else {}
        if member == "instance_config":
            return {"mask_sample": value["mask_sample"]} if "mask_sample" in value else {}
    if member == "failure_reason" and isinstance(value, str):
        return ""
    if member == "reward" and type(value) in (int, float):
        return 0  # finite here: the pre-check let no other number through
    return value


@lru_cache(maxsize=1 << 16)
def _member_findings(version: str, profile: Profile, member: str, shape_json: bytes) -> tuple[Finding, ...]:
    probe = dict(_VALID_BASE[profile])
    probe[member] = orjson.loads(shape_json)
    return tuple(validation.schema_findings(probe, version, profile))


# A string reward is judged by the `type` keyword alone (reward's subschema is {"type": "number"}, and
# nothing else in either profile constrains it), and jsonschema words that as f"{instance!r} is not of
# type 'number'": the reference's one finding holds the value only as its repr. Producers that write
# rewards as strings write a new string on almost every line, so the finding is filled in from a template
# taken from the reference on two probe strings, used only if the schema and both probes bear it out.
_PROBES = ("\x00probe", "'probe\"\\\u00e9\U0001f600")


@cache
def _string_reward_template(version: str, profile: Profile) -> tuple[Finding, str, str] | None:
    definitions = schema_document(version)["$defs"]
    reward = definitions["VerifyResponse"]["properties"]["reward"]
    if set(reward) - {"title", "description"} != {"type"} or reward["type"] != "number":
        return None
    if any(
        "reward" in definition.get("properties", {})
        for name, definition in definitions.items()
        if name != "VerifyResponse"
    ):
        return None
    probes = [_member_findings(version, profile, "reward", orjson.dumps(probe)) for probe in _PROBES]
    if any(len(found) != 1 for found in probes):
        return None
    first, second = probes[0][0], probes[1][0]
    if first.message.count(repr(_PROBES[0])) != 1:
        return None
    head, _, tail = first.message.partition(repr(_PROBES[0]))
    if second != Finding(first.rule, first.severity, head + repr(_PROBES[1]) + tail, first.pointer):
        return None
    return first, head, tail


def _reward_findings(version: str, profile: Profile, value: Any) -> tuple[Finding, ...]:
    if type(value) is str:
        template = _string_reward_template(version, profile)
        if template is not None:
            first, head, tail = template
            return (Finding(first.rule, first.severity, head + repr(value) + tail, first.pointer),)
    return _member_findings(version, profile, "reward", orjson.dumps(_shape("reward", value)))


_SEMANTIC_MEMBERS = ("failure_kind", "mask_sample", "instance_config")


@lru_cache(maxsize=1 << 16)
def _semantic_findings(version: str, skeleton_json: bytes) -> tuple[Finding, ...]:
    return tuple(validation.semantic_findings(orjson.loads(skeleton_json), version))


@lru_cache(maxsize=256)
def _root_findings(version: str, profile: Profile, present: frozenset[str]) -> tuple[Finding, ...]:
    probe = {key: value for key, value in _VALID_BASE[profile].items() if key in present}
    return tuple(f for f in validation.schema_findings(probe, version, profile) if not f.pointer)


MEMO_ENTRIES = 4096
"""Outcomes remembered per (version, profile); past this, new keys take the reference path every time, so
adversarial input (a new failure kind on every line) costs time, not memory."""
_OUTCOMES: dict[tuple[str, str], dict[bytes | None, Outcome]] = {}


def _outcome_memo(version: str, profile: Profile) -> dict[bytes | None, Outcome]:
    memo = _OUTCOMES.get((version, profile))
    if memo is None:
        memo = _OUTCOMES[(version, profile)] = {}
    return memo


def clear_caches() -> None:
    """Forget the memoised findings (benchmarks measure a cold pass with it)."""
    _member_findings.cache_clear()
    _string_reward_template.cache_clear()
    _root_findings.cache_clear()
    _semantic_findings.cache_clear()
    _OUTCOMES.clear()


def _contract_outcome(raw: bytes, version: str, profile: Profile) -> Outcome:
    """A line the pre-check found to be strict JSON (no duplicate, finite, shallow, small integers).

    orjson builds exactly the document ``parse_json`` would, faster (it refuses lone surrogates, which the
    reference accepts: those take the reference path). The reference's schema findings are then composed
    from memoised findings of each constrained member, as argued above; tests/test_differential.py
    compares the result with ``validate`` on every line of its corpus.
    """
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return reference_outcome(raw, version, profile)
    if not isinstance(document, dict):
        return document_outcome(document, version, profile)
    found = list(
        _root_findings(version, profile, frozenset(k for k in ("reward", *_VALID_BASE["gym"]) if k in document))
    )
    for member in _MEMBERS:
        if member in document:
            found.extend(_member_findings(version, profile, member, orjson.dumps(_shape(member, document[member]))))
    if "reward" in document:
        found.extend(_reward_findings(version, profile, document["reward"]))
    # The semantic rules read failure_kind, mask_sample and instance_config.mask_sample (and a non-finite
    # reward, which cannot reach this path).
    semantic = {key: _shape(key, document[key]) for key in _SEMANTIC_MEMBERS if key in document}
    found.extend(_semantic_findings(version, orjson.dumps(semantic)))
    return _facts(document, tuple(found), version)


@dataclass
class Tally:
    """Mergeable counts of a run or of one chunk; the findings listing is capped, the counts are not."""

    max_findings: int = DEFAULT_MAX_FINDINGS
    lines: int = 0
    valid: int = 0
    invalid: int = 0
    blank: int = 0
    masked: int = 0
    legacy_used: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    rules: Counter[str] = field(default_factory=Counter)
    severities: Counter[str] = field(default_factory=Counter)
    findings: list[LocatedFinding] = field(default_factory=list)

    def add(self, outcome: Outcome, path: str, line: int | None) -> None:
        self.count(outcome, 1)
        self.list(outcome, path, line)

    def count(self, outcome: Outcome, times: int) -> None:
        """Count ``times`` documents with this outcome (their findings are listed with ``list``)."""
        if outcome.valid:
            self.valid += times
            self.masked += outcome.masked * times
            self.legacy_used += outcome.legacy * times
            if outcome.kind:
                self.kinds[outcome.kind] += times
        else:
            self.invalid += times
        for item in outcome.findings:
            self.rules[item.rule] += times
            self.severities[item.severity.value] += times

    def list(self, outcome: Outcome, path: str, line: int | None) -> None:
        for item in outcome.findings:
            if len(self.findings) >= self.max_findings:
                return
            self.findings.append(LocatedFinding(path, line, item))

    def add_clean(self, statuses: bytes) -> None:
        counts = fastpath.status_counts(statuses)
        self.blank += counts[fastpath.STATUS_BLANK]
        for status in fastpath.CLEAN_STATUSES:
            count = counts[status]
            if not count:
                continue
            masked, legacy, kind = fastpath.clean_facts(status)
            self.valid += count
            self.masked += count * masked
            self.legacy_used += count * legacy
            if kind:
                self.kinds[kind] += count

    def merge(self, other: Tally) -> None:
        self.lines += other.lines
        self.valid += other.valid
        self.invalid += other.invalid
        self.blank += other.blank
        self.masked += other.masked
        self.legacy_used += other.legacy_used
        self.kinds.update(other.kinds)
        self.rules.update(other.rules)
        self.severities.update(other.severities)
        room = self.max_findings - len(self.findings)
        if room > 0:
            self.findings.extend(other.findings[:room])


def check_chunk(chunk: bytes, first_line: int, path: str, options: CheckOptions, room: int | None = None) -> Tally:
    """Check the lines of one chunk; line numbers start at ``first_line``.

    ``room``: how many findings to list at most (default ``options.max_findings``); a run passes what its
    capped listing still has room for, so that it does not build entries it would drop.
    """
    tally = Tally(options.max_findings if room is None else max(room, 0))
    statuses, others = fastpath.scan(chunk, options.version, options.profile, options.fast)
    tally.lines = len(statuses)
    tally.add_clean(statuses)
    version, profile = options.version, options.profile
    memo = _outcome_memo(version, profile)
    # A key decides the reference's outcome (fastpath, _fastscan.c): the first line with each key is judged
    # as before, the lines after it share that outcome, counted once per key with its number of lines.
    lines_per_key = Counter(map(_KEY, others))
    local: dict[bytes, Outcome] = {}  # this chunk's keys that the full memo could not take
    listed = tally.findings
    room = tally.max_findings
    for index, start, stop, key in others:
        outcome = memo.get(key)
        if outcome is None:
            outcome = local.get(key) if key is not None else None
            if outcome is None:
                raw = chunk[start:stop]
                if statuses[index] == fastpath.STATUS_CONTRACT:
                    outcome = _contract_outcome(raw, version, profile)
                else:
                    outcome = reference_outcome(raw, version, profile)
                if key is None:
                    tally.count(outcome, 1)
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
    return tally


def _check_chunk_task(task: tuple[bytes, int, str, CheckOptions]) -> Tally:
    return check_chunk(*task)


@dataclass
class Report:
    contract_version: str
    profile: Profile
    max_findings: int = DEFAULT_MAX_FINDINGS
    files: int = 0
    tally: Tally = field(init=False)
    input_errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.tally = Tally(self.max_findings)

    # The first version's names, kept for scripts that read them.
    @property
    def total(self) -> int:
        """Documents checked (blank lines excluded)."""
        return self.tally.valid + self.tally.invalid

    @property
    def valid(self) -> int:
        return self.tally.valid

    @property
    def invalid(self) -> int:
        return self.tally.invalid

    @property
    def masked(self) -> int:
        return self.tally.masked

    @property
    def blank(self) -> int:
        return self.tally.blank

    @property
    def lines(self) -> int:
        return self.tally.lines

    @property
    def warnings(self) -> int:
        return self.tally.severities[Severity.WARNING.value]

    @property
    def errors(self) -> int:
        return self.tally.severities[Severity.ERROR.value]

    @property
    def findings(self) -> list[LocatedFinding]:
        return self.tally.findings

    @property
    def findings_total(self) -> int:
        return sum(self.tally.rules.values())

    def failure_kinds(self) -> dict[str, int]:
        return {name: self.tally.kinds[name] for name in KIND_CLASSES}

    def legacy_mask(self) -> dict[str, int]:
        rules = self.tally.rules
        return {
            "used": self.tally.legacy_used,
            "only": rules["legacy-mask-only"],
            "divergent": rules["legacy-mask-divergent"],
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "contract_version": self.contract_version,
            "profile": self.profile,
            "files": self.files,
            "lines": self.lines,
            "total": self.total,
            "valid": self.valid,
            "invalid": self.invalid,
            "blank": self.blank,
            "masked": self.masked,
            "warnings": self.warnings,
            "errors": self.errors,
            "failure_kinds": self.failure_kinds(),
            "legacy_mask": self.legacy_mask(),
            "rules": dict(sorted(self.tally.rules.items())),
            "findings_total": self.findings_total,
            "findings_shown": len(self.findings),
            "findings": [f.as_dict() for f in self.findings],
            "input_errors": list(self.input_errors),
        }


Progress = Callable[[int, int], None]
"""Called with (bytes read so far, lines checked so far)."""


def _tasks(sources: Iterable[Source], options: CheckOptions, report: Report) -> Iterator[tuple[Any, ...]]:
    """("doc", name, text) for a .json file, ("lines", chunk, first chunk of its source?, name) for JSONL."""
    for source in sources:
        report.files += 1
        try:
            if source.is_document:
                yield ("doc", source.name, read_all(source))
                continue
            first = True
            for chunk in chunks(source):
                yield ("lines", chunk, first, source.name)
                first = False
        except InputError as error:
            report.input_errors.append(str(error))


def _document_tally(name: str, text: bytes, options: CheckOptions) -> Tally:
    tally = Tally(options.max_findings)
    tally.lines = 1  # a .json file is one document, even when empty (SPEC 2.1: not a JSON text)
    tally.add(reference_outcome(text, options.version, options.profile), name, None)
    return tally


def check_sources(sources: Iterable[Source], options: CheckOptions, progress: Progress | None = None) -> Report:
    report = Report(options.version, options.profile, options.max_findings)
    done_bytes = 0

    def absorb(tally: Tally, size: int) -> None:
        nonlocal done_bytes
        report.tally.merge(tally)
        done_bytes += size
        if progress is not None:
            progress(done_bytes, report.lines)

    tasks = _tasks(sources, options, report)
    line = 1  # of the next chunk in its source
    if options.jobs <= 1:
        for task in tasks:
            if task[0] == "doc":
                absorb(_document_tally(task[1], task[2], options), len(task[2]))
            else:
                line = 1 if task[2] else line
                tally = check_chunk(task[1], line, task[3], options, report.max_findings - len(report.findings))
                line += tally.lines
                absorb(tally, len(task[1]))
        return report
    # Several processes, results merged in input order: the report is the single-process one.
    context = multiprocessing.get_context()
    pending: deque[tuple[AsyncResult[Tally] | Tally, int]] = deque()
    with context.Pool(options.jobs) as pool:
        for task in tasks:
            if task[0] == "doc":
                pending.append((_document_tally(task[1], task[2], options), len(task[2])))
            else:
                line = 1 if task[2] else line
                work = (task[1], line, task[3], options)
                line += fastpath.count_lines(task[1])
                pending.append((pool.apply_async(_check_chunk_task, (work,)), len(task[1])))
            while len(pending) > 2 * options.jobs:  # bounded: memory stays flat
                result, size = pending.popleft()
                absorb(result if isinstance(result, Tally) else result.get(), size)
        while pending:
            result, size = pending.popleft()
            absorb(result if isinstance(result, Tally) else result.get(), size)
    return report


def check_paths(
    paths: Iterable[str | Any],
    version: str = LATEST_VERSION,
    profile: Profile = DEFAULT_PROFILE,
    *,
    options: CheckOptions | None = None,
    progress: Progress | None = None,
) -> Report:
    """Check files, directories, globs or ``-``; unreadable inputs are listed in ``report.input_errors``."""
    options = options or CheckOptions(version, profile)
    sources, errors = resolve([str(p) for p in paths])
    report = check_sources(sources, options, progress)
    report.input_errors[:0] = errors
    return report


def check_bytes(data: bytes, options: CheckOptions | None = None, name: str = "<bytes>") -> Report:
    """Check JSONL held in memory (tests, the conformance kit)."""
    options = options or CheckOptions()
    report = Report(options.version, options.profile, options.max_findings)
    report.files = 1
    if data:
        report.tally.merge(check_chunk(data, 1, name, options))
    return report


def dumps_report(report: Report) -> str:
    return json.dumps(report.as_dict(), indent=2, ensure_ascii=False)
