"""The failure-kind registry for generation: typed kinds (parsed and linted by verify_contract.contract._registry) and
the per-version enum schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generators.paths import FAILURE_KINDS_FILE, version_key
from verify_contract.contract._failure_kind_info import Deprecation, FailureKindInfo
from verify_contract.contract._registry import parse_registry, registered

__all__ = ["Deprecation", "FailureKindInfo", "RegistryError", "failure_kinds_schema", "kinds_at", "load_registry"]

SCHEMA_BASE = "https://verify-contract.dev/schema"


class RegistryError(ValueError):
    """The registry file breaks one of its own rules."""


def load_registry(path: Path, versions: list[str]) -> list[FailureKindInfo]:
    """The registry's kinds (the runtime's type, ``contract._failure_kind_info``), in file order; any lint
    problem (verify_contract.contract._registry) is an error."""
    try:
        return registered(parse_registry(path.read_text(encoding="utf-8"), versions, path.name))
    except ValueError as error:
        raise RegistryError(str(error)) from None


def kinds_at(kinds: list[FailureKindInfo], version: str) -> list[FailureKindInfo]:
    """The kinds a contract version knows: those added at or before it, in registry order."""
    return [kind for kind in kinds if version_key(kind.added_in) <= version_key(version)]


def failure_kinds_schema(kinds: list[FailureKindInfo], version: str) -> dict[str, Any]:
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
