"""The failure-kind registry for generation: typed kinds (parsed and linted by verify_contract.contract._registry) and
the per-version enum schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from generators.paths import FAILURE_KINDS_FILE, version_key
from verify_contract.contract._failure_kind_info import Deprecation, DeprecationReason, FailureKindInfo, Stability
from verify_contract.contract._registry import lint_findings, parse_registry

__all__ = ["Deprecation", "FailureKind", "RegistryError", "failure_kinds_schema", "kinds_at", "load_registry"]

SCHEMA_BASE = "https://verify-contract.dev/schema"


class RegistryError(ValueError):
    """The registry file breaks one of its own rules."""


FailureKind = FailureKindInfo
"""A registry entry: the runtime's type (``contract._failure_kind_info``), under the generators' name."""


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
            reason = cast(DeprecationReason, raw["reason"])  # lint_findings checked it is one of the reasons
            deprecation = Deprecation(raw["in"], reason, raw.get("renamed_to"), raw.get("note"))
        # lint_findings guarantees these fields are non-empty strings, the stability one of STABILITIES
        assert kind.domain and kind.brief and kind.stability and kind.added_in
        stability = cast(Stability, kind.stability)
        kinds.append(FailureKind(kind.id, kind.domain, kind.brief, stability, kind.added_in, deprecation))
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
