"""The failure-kind registry: load and lint the data file, derive the per-version enum schema."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generators.paths import FAILURE_KINDS_FILE, version_key

ID_PATTERN = re.compile(r"[a-z][a-z0-9_]*")
STABILITIES = ("development", "stable")
DEPRECATION_REASONS = ("renamed", "obsoleted")
SCHEMA_BASE = "https://verify-contract.dev/schema"


class RegistryError(ValueError):
    """The registry file breaks one of its own rules."""


@dataclass(frozen=True)
class Deprecation:
    since: str
    reason: str
    renamed_to: str | None
    note: str | None


@dataclass(frozen=True)
class FailureKind:
    id: str
    domain: str
    brief: str
    stability: str
    added_in: str
    deprecated: Deprecation | None

    def deprecated_at(self, version: str) -> bool:
        return self.deprecated is not None and version_key(self.deprecated.since) <= version_key(version)


def _parse_kind(entry: dict[str, Any], versions: list[str]) -> FailureKind:
    kind_id = entry.get("id")
    if not isinstance(kind_id, str) or not ID_PATTERN.fullmatch(kind_id):
        raise RegistryError(f"kind id {kind_id!r} must match {ID_PATTERN.pattern}")
    for key in ("domain", "brief", "stability", "added_in"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise RegistryError(f"kind {kind_id}: {key} must be a non-empty string")
    if entry["stability"] not in STABILITIES:
        raise RegistryError(f"kind {kind_id}: stability must be one of {STABILITIES}")
    if entry["added_in"] not in versions:
        raise RegistryError(f"kind {kind_id}: added_in {entry['added_in']} is not a contract version")
    unknown = set(entry) - {"id", "domain", "brief", "stability", "added_in", "deprecated"}
    if unknown:
        raise RegistryError(f"kind {kind_id}: unknown keys {sorted(unknown)}")
    deprecation = None
    raw = entry.get("deprecated")
    if raw is not None:
        if raw.get("reason") not in DEPRECATION_REASONS:
            raise RegistryError(f"kind {kind_id}: deprecated.reason must be one of {DEPRECATION_REASONS}")
        if raw.get("in") not in versions:
            raise RegistryError(f"kind {kind_id}: deprecated.in must be a contract version")
        deprecation = Deprecation(raw["in"], raw["reason"], raw.get("renamed_to"), raw.get("note"))
    return FailureKind(
        kind_id, entry["domain"], entry["brief"].strip(), entry["stability"], entry["added_in"], deprecation
    )


def load_registry(path: Path, versions: list[str]) -> list[FailureKind]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("file_format") != "failure-kind-registry/1":
        raise RegistryError(f"{path.name}: file_format must be failure-kind-registry/1")
    kinds = [_parse_kind(entry, versions) for entry in data.get("kinds") or []]
    ids = [kind.id for kind in kinds]
    duplicates = sorted({kind_id for kind_id in ids if ids.count(kind_id) > 1})
    if duplicates:
        raise RegistryError(f"duplicate kind ids: {duplicates}")
    by_id = {kind.id: kind for kind in kinds}
    for kind in kinds:
        if kind.deprecated is None:
            continue
        target = kind.deprecated.renamed_to
        if kind.deprecated.reason == "renamed":
            if target not in by_id:
                raise RegistryError(f"kind {kind.id}: renamed_to {target!r} is not a registered kind")
            if by_id[target].deprecated is not None:
                raise RegistryError(f"kind {kind.id}: renamed_to {target!r} is itself deprecated")
        elif target is not None:
            raise RegistryError(f"kind {kind.id}: renamed_to is only for reason 'renamed'")
    return kinds


def kinds_at(kinds: list[FailureKind], version: str) -> list[FailureKind]:
    """The kinds a contract version knows: those added at or before it, in registry order."""
    return [kind for kind in kinds if version_key(kind.added_in) <= version_key(version)]


def failure_kinds_schema(kinds: list[FailureKind], version: str) -> dict[str, Any]:
    """The registry part of a version's schema: the enum of registered kind ids."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{SCHEMA_BASE}/{version}/{FAILURE_KINDS_FILE}",
        "title": "RegisteredFailureKind",
        "description": (
            "A failure kind registered in the shared registry at contract "
            f"{version}. Generated from schema/registry/failure_kinds.yaml: do not edit."
        ),
        "type": "string",
        "enum": [kind.id for kind in kinds_at(kinds, version)],
    }
