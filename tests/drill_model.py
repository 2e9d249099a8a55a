"""A synthetic next contract version for template tests: one optional constrained field of each JSON
type, a nested object, typed array items, awkward member names, a new required gym member, a new
registered and a newly deprecated kind; resolved in memory (nothing in the repository changes)."""

from __future__ import annotations

import copy
import json
from typing import Any

from generators import paths
from generators.bundle import bundle, uses_registry
from generators.model import resolved_models
from generators.registry import Deprecation, FailureKind, failure_kinds_schema, load_registry

NEXT = "1.3.0"
NEW_FIELDS: dict[str, Any] = {
    "retryable": {"title": "Retryable", "type": "boolean"},
    "attempts": {"title": "Attempts", "type": "integer", "minimum": 1},
    "latency_s": {"title": "LatencySeconds", "type": "number", "minimum": 0},
    "trace_id": {"title": "TraceId", "type": "string", "pattern": "^[0-9a-f]+$", "maxLength": 8},
    "note": {"title": "Note", "type": ["string", "null"]},
    "timing": {
        "title": "Timing",
        "type": "object",
        "properties": {"wall_s": {"title": "WallSeconds", "type": "number", "exclusiveMinimum": 0}},
    },
    "tags": {"title": "Tags", "type": "array", "items": {"type": "string", "maxLength": 4}},
    # Names that are keywords or not identifiers in some language, or clash with the unknown-members field.
    "type": {"title": "Kind", "type": "string"},
    "extra": {"title": "ExtraCount", "type": "integer"},
    "a-b": {"title": "AB", "type": "boolean"},
}
GYM_ECHO = {"responses_create_params": {}, "response": {"output": []}, "episode_id": "e1"}
# (document beyond {"reward": 0}, valid?) for the core profile; gym adds GYM_ECHO.
CASES: list[tuple[str, dict[str, Any], bool]] = [
    (
        "all-new-fields",
        {
            "retryable": True,
            "attempts": 2,
            "latency_s": 0,
            "trace_id": "ab12",
            "note": None,
            "timing": {"wall_s": 1.5, "cpu_s": 1},
            "tags": ["a", "bc"],
        },
        True,
    ),
    ("retryable-string", {"retryable": "yes"}, False),
    ("attempts-zero", {"attempts": 0}, False),
    ("attempts-fraction", {"attempts": 1.5}, False),
    ("latency-negative", {"latency_s": -0.5}, False),
    ("trace-uppercase", {"trace_id": "AB"}, False),
    ("trace-too-long", {"trace_id": "0123456789"}, False),
    ("note-number", {"note": 3}, False),
    ("timing-zero", {"timing": {"wall_s": 0}}, False),
    ("timing-not-object", {"timing": []}, False),
    ("tags-number", {"tags": [1]}, False),
    ("tags-item-too-long", {"tags": ["abcde"]}, False),
    ("new-kind", {"failure_kind": "sandbox_evicted", "mask_sample": True}, True),
    ("awkward-names", {"type": "t", "extra": 3, "a-b": False, "Extra": "unknown"}, True),
    ("awkward-type-number", {"type": 1}, False),
    ("awkward-extra-string", {"extra": "3"}, False),
]


def next_version_data() -> tuple[dict[str, dict[str, Any]], list[FailureKind], dict[str, dict[str, Any]]]:
    versions = paths.contract_versions()
    kinds = load_registry(paths.REGISTRY_FILE, versions)
    latest = versions[-1]
    kinds = [
        FailureKind(k.id, k.domain, k.brief, k.stability, k.added_in, Deprecation(NEXT, "obsoleted", None, None))
        if k.id == "kill_shaped"
        else k
        for k in kinds
    ]
    kinds.append(FailureKind("sandbox_evicted", "provider", "The sandbox was evicted.", "development", NEXT, None))
    sources = {
        v: json.loads((paths.VERSIONS_DIR / v / paths.VERIFY_RESPONSE_FILE).read_text(encoding="utf-8"))
        for v in versions
    }
    source = copy.deepcopy(sources[latest])
    source["$defs"]["VerifyResponse"]["properties"].update(copy.deepcopy(NEW_FIELDS))
    gym = source["$defs"]["GymVerifyResponse"]
    gym_own = next(part for part in [gym, *gym.get("allOf", [])] if "properties" in part)
    gym_own["properties"]["episode_id"] = {"title": "EpisodeId", "type": "string"}
    gym_own["required"] = [*gym_own.get("required", []), "episode_id"]
    sources[NEXT] = source
    bundles = {v: bundle(s, failure_kinds_schema(kinds, v) if uses_registry(s) else None) for v, s in sources.items()}
    return bundles, kinds, resolved_models(bundles, kinds)


def documents(profile: str) -> list[tuple[str, dict[str, Any], bool]]:
    """(case, document, valid) at ``profile``: CASES on top of a minimal document of that profile."""
    echo = GYM_ECHO if profile == "gym" else {}
    return [(name, {"reward": 0, **echo, **extra}, valid) for name, extra, valid in CASES]
