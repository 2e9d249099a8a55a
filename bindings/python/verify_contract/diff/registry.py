"""The failure-kind registry as the differ sees it: a lenient parse, the file's own lint rules, and the
OpenTelemetry-style compatibility rules between two registries.

The lint mirrors ``generators/registry.py`` (the generators' strict loader, which is not shipped in the wheel);
tests/test_diff_registry.py checks that both accept and reject the same files.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

from verify_contract.versions import version_key

FILE_FORMAT = "failure-kind-registry/1"
ID_PATTERN = re.compile(r"[a-z][a-z0-9_]*")
STABILITIES = ("development", "stable")
DEPRECATION_REASONS = ("renamed", "obsoleted")
KIND_KEYS = {"id", "domain", "brief", "stability", "added_in", "deprecated"}
FILE = "failure_kinds.yaml"


@dataclass(frozen=True)
class Kind:
    index: int
    """Position in the file's ``kinds`` list, for the JSON pointer ``/kinds/<index>``."""
    id: str
    domain: str | None
    brief: str | None
    stability: str | None
    added_in: str | None
    deprecated: dict[str, Any] | None

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
    problems: list[str]
    """Lint findings of the file's own rules (empty for a well-formed registry)."""

    def at(self, version: str | None) -> dict[str, Kind]:
        """The kinds a contract version knows, by id (the first of duplicate ids wins)."""
        known: dict[str, Kind] = {}
        for kind in self.kinds:
            if kind.known_at(version):
                known.setdefault(kind.id, kind)
        return known


def _text(entry: dict[str, Any], key: str) -> str | None:
    value = entry.get(key)
    return value.strip() if isinstance(value, str) else None


def _lint_kind(entry: dict[str, Any], versions: list[str]) -> list[str]:
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
    unknown = set(entry) - KIND_KEYS
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


def parse_registry(text: str, versions: list[str], where: str = FILE) -> RegistryData:
    """Parse without raising: the differ reports a broken registry as a change, not as a crash."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        return RegistryData(where, [], [f"not YAML: {error}"])
    if not isinstance(data, dict) or data.get("file_format") != FILE_FORMAT:
        return RegistryData(where, [], [f"file_format must be {FILE_FORMAT}"])
    entries = data.get("kinds") or []
    if not isinstance(entries, list):
        return RegistryData(where, [], ["kinds must be a list"])
    kinds: list[Kind] = []
    problems: list[str] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            problems.append(f"kinds[{index}] has no string id")
            continue
        problems.extend(_lint_kind(entry, versions))
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
            )
        )
    ids = [kind.id for kind in kinds]
    duplicates = sorted({kind_id for kind_id in ids if ids.count(kind_id) > 1})
    if duplicates:
        problems.append(f"duplicate kind ids: {duplicates}")
    return RegistryData(where, kinds, problems)


Emit = Callable[[str, str, str, str], None]
"""``emit(rule id, file, JSON pointer, message)``."""


def _rename_problem(kind: Kind, deprecation: dict[str, Any], known: dict[str, Kind], version: str | None) -> str | None:
    target = deprecation.get("renamed_to")
    if not isinstance(target, str):
        return f"`{kind.id}` is deprecated as renamed but has no `renamed_to`"
    if target not in known:
        return f"`{kind.id}` is renamed to `{target}`, which is not a registered kind"
    if known[target].deprecated_at(version) is not None:
        return f"`{kind.id}` is renamed to `{target}`, which is itself deprecated"
    return None


def _compare_kind(old: Kind, new: Kind, old_version: str | None, new_version: str | None, emit: Emit) -> None:
    if (old.domain, old.added_in) != (new.domain, new.added_in):
        emit(
            "REGISTRY_KIND_MEANING_CHANGED",
            FILE,
            new.pointer,
            f"`{new.id}`: domain/added_in changed from {old.domain}/{old.added_in} to {new.domain}/{new.added_in}",
        )
    if old.stability == "stable" and new.stability != "stable":
        emit("REGISTRY_STABILITY_LOWERED", FILE, new.pointer, f"`{new.id}` went from stable to {new.stability}")
    elif old.stability != "stable" and new.stability == "stable":
        emit("REGISTRY_STABILITY_RAISED", FILE, new.pointer, f"`{new.id}` is now stable (was {old.stability})")
    if old.brief != new.brief:
        emit("REGISTRY_KIND_BRIEF_CHANGED", FILE, new.pointer, f"`{new.id}`: brief changed to {new.brief!r}")
    was, now = old.deprecated_at(old_version), new.deprecated_at(new_version)
    if was is not None and now is None:
        emit("REGISTRY_KIND_UNDEPRECATED", FILE, new.pointer, f"`{new.id}` is no longer deprecated")
    elif was is not None and now is not None and was != now:
        emit("REGISTRY_DEPRECATION_CHANGED", FILE, new.pointer, f"`{new.id}`: deprecation changed to {now}")


def lint_registry(data: RegistryData) -> list[str]:
    """Every rule of the registry file the generators enforce: the parse's problems plus broken renames."""
    known = data.at(None)
    renames = [
        _rename_problem(kind, kind.deprecated, known, None)
        for kind in data.kinds
        if kind.deprecated is not None and kind.deprecated.get("reason") == "renamed"
    ]
    return [*data.problems, *(problem for problem in renames if problem is not None)]


def compare_registries(
    old: RegistryData, new: RegistryData, old_version: str | None, new_version: str | None, emit: Emit
) -> None:
    """Registry rules: never remove, rename only through ``renamed_to``, never lower stability or change meaning."""
    for problem in new.problems:
        emit("REGISTRY_INVALID", FILE, "", problem)
    before, after = old.at(old_version), new.at(new_version)
    removed = [kind for kind_id, kind in before.items() if kind_id not in after]
    added = [kind for kind_id, kind in after.items() if kind_id not in before]
    renamed_in_place: set[str] = set()
    for gone in removed:
        twin = next((k for k in added if k.brief == gone.brief and k.id not in renamed_in_place), None)
        if twin is not None:
            renamed_in_place.add(twin.id)
            emit(
                "REGISTRY_KIND_RENAMED_IN_PLACE",
                FILE,
                twin.pointer,
                f"`{gone.id}` became `{twin.id}`: keep `{gone.id}` and deprecate it with renamed_to: {twin.id}",
            )
        else:
            emit("REGISTRY_KIND_REMOVED", FILE, gone.pointer, f"`{gone.id}` was removed; deprecate it instead")
    for kind in added:
        if kind.id not in renamed_in_place:
            emit("REGISTRY_KIND_ADDED", FILE, kind.pointer, f"`{kind.id}` registered ({kind.stability})")
    for kind_id, kind in after.items():
        if kind_id in before:
            _compare_kind(before[kind_id], kind, old_version, new_version, emit)
        deprecation = kind.deprecated_at(new_version)
        newly = deprecation is not None and (
            kind_id not in before or before[kind_id].deprecated_at(old_version) is None
        )
        if deprecation is not None and deprecation.get("reason") == "renamed":
            broken = _rename_problem(kind, deprecation, after, new_version)
            if broken is not None:
                emit("REGISTRY_RENAME_TARGET_INVALID", FILE, kind.pointer, broken)
            elif newly:
                emit(
                    "REGISTRY_KIND_RENAMED",
                    FILE,
                    kind.pointer,
                    f"`{kind_id}` is deprecated, renamed to `{deprecation['renamed_to']}`",
                )
        elif newly:
            emit("REGISTRY_KIND_DEPRECATED", FILE, kind.pointer, f"`{kind_id}` is deprecated (obsoleted)")
