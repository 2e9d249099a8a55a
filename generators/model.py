"""The resolved contract model of every version (verify_contract.contract._resolve), from the sources in schema/."""

from __future__ import annotations

import dataclasses
from typing import Any

import yaml

from generators import paths
from generators.registry import FailureKindInfo
from verify_contract.contract._resolve import resolve_model


def contract_facts() -> dict[str, Any]:
    facts: dict[str, Any] = yaml.safe_load(paths.CONTRACT_FACTS_FILE.read_text(encoding="utf-8"))
    return facts


def _kind_data(kind: FailureKindInfo) -> dict[str, Any]:
    data = dataclasses.asdict(kind)
    if kind.deprecated is not None:
        deprecation = data["deprecated"]
        data["deprecated"] = {"in": deprecation.pop("since"), **{k: v for k, v in deprecation.items() if v is not None}}
    return data


def registry_at(kind_data: list[dict[str, Any]], version: str) -> list[dict[str, Any]]:
    """The registry as ``version`` knows it: the kinds added up to it, deprecations made up to it.

    A version's model hash covers this, not the whole registry, so registering or deprecating a kind in a
    later version leaves every released version's model (and the code generated from it) as it was."""
    key = paths.version_key(version)
    seen = []
    for kind in kind_data:
        if paths.version_key(kind["added_in"]) > key:
            continue
        deprecated = kind.get("deprecated")
        if deprecated is not None and paths.version_key(deprecated["in"]) > key:
            kind = {**kind, "deprecated": None}
        seen.append(kind)
    return seen


def resolved_models(bundles: dict[str, dict[str, Any]], kinds: list[FailureKindInfo]) -> dict[str, dict[str, Any]]:
    """``{version: model}``, oldest first. The hash covers the version's bundle, the registry as that version
    knows it and the facts."""
    facts = contract_facts()
    kind_data = [_kind_data(kind) for kind in kinds]
    return {
        version: resolve_model(
            version,
            bundles,
            kind_data,
            facts,
            sources={"bundle": bundles[version], "registry": registry_at(kind_data, version), "contract": facts},
        )
        for version in bundles
    }
