"""The resolved contract model of every version (verify_contract._resolve), from the sources in schema/."""

from __future__ import annotations

import dataclasses
from typing import Any

import yaml

from generators import paths
from generators.registry import FailureKind
from verify_contract._resolve import resolve_model


def contract_facts() -> dict[str, Any]:
    facts: dict[str, Any] = yaml.safe_load(paths.CONTRACT_FACTS_FILE.read_text(encoding="utf-8"))
    return facts


def _kind_data(kind: FailureKind) -> dict[str, Any]:
    data = dataclasses.asdict(kind)
    if kind.deprecated is not None:
        deprecation = data["deprecated"]
        data["deprecated"] = {"in": deprecation.pop("since"), **{k: v for k, v in deprecation.items() if v is not None}}
    return data


def resolved_models(bundles: dict[str, dict[str, Any]], kinds: list[FailureKind]) -> dict[str, dict[str, Any]]:
    """``{version: model}``, oldest first. The hash covers the version's bundle, the registry and the facts."""
    facts = contract_facts()
    kind_data = [_kind_data(kind) for kind in kinds]
    return {
        version: resolve_model(
            version,
            bundles,
            kind_data,
            facts,
            sources={"bundle": bundles[version], "registry": kind_data, "contract": facts},
        )
        for version in bundles
    }
