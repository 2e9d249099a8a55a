"""The failure-kind registry file (schema/registry/failure_kinds.yaml): a lenient parse and the file's
own lint rules, whose findings point at the entry they are about. The one loader of the file: the
generators raise on any lint finding, the differ reports them as changes (verify_contract.diff.registry).

An entry is typed once, as ``FailureKindInfo`` (what the bindings and the generators use). ``Kind`` wraps it
with the entry's place in the file and the lenient reading of each key, because the lint and the differ must
read an entry that ``FailureKindInfo`` cannot hold (a missing brief, an unknown stability, a deprecation
without a reason): the differ still compares such an entry while reporting it invalid."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, cast

import yaml

from verify_contract.contract._document import version_key
from verify_contract.contract._failure_kind_info import (
    DEPRECATION_REASONS,
    ENTRY_KEYS,
    STABILITIES,
    Deprecation,
    DeprecationReason,
    FailureKindInfo,
    Stability,
)
from verify_contract.findings import Finding, Severity

FILE_FORMAT = "failure-kind-registry/1"
ID_PATTERN = re.compile(r"[a-z][a-z0-9_]*")
FILE = "failure_kinds.yaml"
LINT_RULE = "registry-lint"
"""The rule id of every ``Finding`` of the registry file's own rules (listed above)."""


@dataclass(frozen=True)
class Kind:
    """One entry of the file as the lint and the differ read it (each key None where it is not a non-empty
    string), and ``info``, the entry typed as the bindings type it: None when the entry breaks a rule."""

    index: int
    """Position in the file's ``kinds`` list, for the JSON pointer ``/kinds/<index>``."""
    id: str
    domain: str | None
    brief: str | None
    stability: str | None
    added_in: str | None
    deprecated: dict[str, Any] | None
    info: FailureKindInfo | None

    @property
    def pointer(self) -> str:
        return f"/kinds/{self.index}"

    def known_at(self, version: str | None) -> bool:
        if version is None or self.added_in is None:
            return True
        try:
            return version_key(self.added_in) <= version_key(version)
        except ValueError:
            return True

    def deprecated_at(self, version: str | None) -> dict[str, Any] | None:
        since = self.deprecated.get("in") if self.deprecated else None
        if self.deprecated is None or version is None or not isinstance(since, str):
            return self.deprecated
        try:
            return self.deprecated if version_key(since) <= version_key(version) else None
        except ValueError:
            return self.deprecated


@dataclass(frozen=True)
class RegistryData:
    where: str
    kinds: list[Kind]
    findings: list[Finding]
    """What the parse found against the file's own rules (rule ``registry-lint``; empty for a well-formed
    registry). ``lint_findings`` adds the broken renames."""

    def at(self, version: str | None) -> dict[str, Kind]:
        """The kinds a contract version knows, by id (the first of duplicate ids wins)."""
        known: dict[str, Kind] = {}
        for kind in self.kinds:
            if kind.known_at(version):
                known.setdefault(kind.id, kind)
        return known


def _lint(where: str, message: str, pointer: str = "") -> Finding:
    return Finding(LINT_RULE, Severity.ERROR, message, pointer, where)


def _text(entry: dict[str, Any], key: str) -> str | None:
    value = entry.get(key)
    return value.strip() if isinstance(value, str) else None


def _lint_kind(entry: dict[str, Any], versions: list[str]) -> list[str]:
    """The problems of one ``kinds`` entry, as messages (``parse_registry`` points them at the entry)."""
    kind_id = entry.get("id")
    if not isinstance(kind_id, str) or not ID_PATTERN.fullmatch(kind_id):
        return [f"kind id {kind_id!r} must match {ID_PATTERN.pattern}"]
    problems = [
        f"kind {kind_id}: {key} must be a non-empty string"
        for key in ("domain", "brief", "stability", "added_in")
        if not _text(entry, key)
    ]
    if _text(entry, "stability") and entry["stability"] not in STABILITIES:
        problems.append(f"kind {kind_id}: stability must be one of {STABILITIES}")
    if _text(entry, "added_in") and entry["added_in"] not in versions:
        problems.append(f"kind {kind_id}: added_in {entry['added_in']} is not a contract version")
    unknown = set(entry) - ENTRY_KEYS
    if unknown:
        problems.append(f"kind {kind_id}: unknown keys {sorted(unknown)}")
    raw = entry.get("deprecated")
    if raw is not None:
        if not isinstance(raw, dict) or raw.get("reason") not in DEPRECATION_REASONS:
            problems.append(f"kind {kind_id}: deprecated.reason must be one of {DEPRECATION_REASONS}")
        elif raw.get("in") not in versions:
            problems.append(f"kind {kind_id}: deprecated.in must be a contract version")
        elif raw.get("reason") != "renamed" and raw.get("renamed_to") is not None:
            problems.append(f"kind {kind_id}: renamed_to is only for reason 'renamed'")
    return problems


def kind_info(entry: dict[str, Any]) -> FailureKindInfo:
    """The typed entry of one that ``_lint_kind`` passed (or of a resolved model's ``registered[]``, made of
    such entries): its strings are non-empty, its stability and deprecation reason among the allowed ones
    (the casts say what the lint checked)."""
    raw = entry.get("deprecated")
    deprecation = None
    if raw is not None:
        reason = cast(DeprecationReason, raw["reason"])
        deprecation = Deprecation(raw["in"], reason, raw.get("renamed_to"), raw.get("note"))
    text = {key: cast(str, _text(entry, key)) for key in ("domain", "brief", "stability", "added_in")}
    stability = cast(Stability, text["stability"])
    return FailureKindInfo(entry["id"], text["domain"], text["brief"], stability, text["added_in"], deprecation)


def parse_registry(text: str, versions: list[str], where: str = FILE) -> RegistryData:
    """Parse without raising: the differ reports a broken registry as a change, not as a crash."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        return RegistryData(where, [], [_lint(where, f"not YAML: {error}")])
    if not isinstance(data, dict) or data.get("file_format") != FILE_FORMAT:
        return RegistryData(where, [], [_lint(where, f"file_format must be {FILE_FORMAT}", "/file_format")])
    entries = data.get("kinds") or []
    if not isinstance(entries, list):
        return RegistryData(where, [], [_lint(where, "kinds must be a list", "/kinds")])
    kinds: list[Kind] = []
    findings: list[Finding] = []
    for index, entry in enumerate(entries):
        pointer = f"/kinds/{index}"
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            findings.append(_lint(where, f"kinds[{index}] has no string id", pointer))
            continue
        problems = _lint_kind(entry, versions)
        findings.extend(_lint(where, problem, pointer) for problem in problems)
        deprecated = entry.get("deprecated")
        kinds.append(
            Kind(
                index,
                entry["id"],
                _text(entry, "domain"),
                _text(entry, "brief"),
                _text(entry, "stability"),
                _text(entry, "added_in"),
                deprecated if isinstance(deprecated, dict) else None,
                None if problems else kind_info(entry),
            )
        )
    ids = [kind.id for kind in kinds]
    duplicates = sorted({kind_id for kind_id in ids if ids.count(kind_id) > 1})
    if duplicates:
        findings.append(_lint(where, f"duplicate kind ids: {duplicates}", "/kinds"))
    return RegistryData(where, kinds, findings)


def rename_problem(kind: Kind, deprecation: dict[str, Any], known: dict[str, Kind], version: str | None) -> str | None:
    """What is wrong with a kind's ``renamed_to`` (the lint's and the differ's message), or None."""
    target = deprecation.get("renamed_to")
    if not isinstance(target, str):
        return f"`{kind.id}` is deprecated as renamed but has no `renamed_to`"
    if target not in known:
        return f"`{kind.id}` is renamed to `{target}`, which is not a registered kind"
    if known[target].deprecated_at(version) is not None:
        return f"`{kind.id}` is renamed to `{target}`, which is itself deprecated"
    return None


def registered(data: RegistryData) -> list[FailureKindInfo]:
    """The typed kinds of a registry with no lint finding, in file order (``ValueError`` naming the
    findings otherwise): what the generators build every output from."""
    problems = lint_findings(data)
    typed = [kind.info for kind in data.kinds if kind.info is not None]
    if problems or len(typed) != len(data.kinds):
        raise ValueError(f"{data.where}: " + "; ".join(problem.message for problem in problems))
    return typed


def lint_findings(data: RegistryData) -> list[Finding]:
    """Every rule of the registry file the generators enforce: the parse's findings plus broken renames
    (rule ``registry-lint``, severity error, file: the registry, pointer: the entry, when there is one)."""
    known = data.at(None)
    found = list(data.findings)
    for kind in data.kinds:
        if kind.deprecated is not None and kind.deprecated.get("reason") == "renamed":
            problem = rename_problem(kind, kind.deprecated, known, None)
            if problem is not None:
                found.append(_lint(data.where, problem, kind.pointer))
    return found
