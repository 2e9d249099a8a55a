"""The failure-kind registry for generation: typed kinds (parsed and linted by verify_contract.contract._registry) and
the per-version enum schema."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generators.paths import FAILURE_KINDS_FILE, version_key
from verify_contract.contract._registry import lint_findings, parse_registry

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


def load_registry(path: Path, versions: list[str]) -> list[FailureKind]:
    """The registry's kinds, in file order; any lint problem (verify_contract.contract._registry) is an error."""
    data = parse_registry(path.read_text(encoding="utf-8"), versions, path.name)
    problems = lint_findings(data)
    if problems:
        raise RegistryError(f"{path.name}: " + "; ".join(problem.message for problem in problems))
    kinds = []
    for kind in data.kinds:
        deprecation = None
        if kind.deprecated is not None:
            raw = kind.deprecated
            deprecation = Deprecation(raw["in"], raw["reason"], raw.get("renamed_to"), raw.get("note"))
        # lint_findings guarantees these fields are non-empty strings
        assert kind.domain and kind.brief and kind.stability and kind.added_in
        kinds.append(FailureKind(kind.id, kind.domain, kind.brief, kind.stability, kind.added_in, deprecation))
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
