"""The change drill's synthetic next contract version, stated once: one optional constrained field of each
JSON type, a nested object, typed array items, awkward member names, a new required gym member, a newly
registered and a newly deprecated kind, and documents that satisfy and break each new constraint.

Two users: the template tests resolve it in memory (``next_version_data``: nothing in the repository
changes), and tests/package/test_change_drill.py writes it into a copy of the repository the way a maintainer
would (``next_schema`` and the registry edit) and runs the generators there.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from generators import paths
from generators.bundle import bundle, uses_registry
from generators.model import resolved_models
from generators.registry import Deprecation, FailureKindInfo, failure_kinds_schema, load_registry

LATEST = paths.contract_versions()[-1]
_major, _minor, _ = map(int, LATEST.split("."))
NEXT = f"{_major}.{_minor + 1}.0"
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
GYM_REQUIRED = "episode_id"
GYM_ECHO = {"responses_create_params": {}, "response": {"output": []}, GYM_REQUIRED: "e1"}
NEW_KIND = FailureKindInfo("sandbox_evicted", "provider", "The sandbox was evicted.", "development", NEXT, None)
DEPRECATED_KIND = "kill_shaped"
# (case, document beyond {"reward": 0}, valid?) for the core profile; gym adds GYM_ECHO.
CASES: list[tuple[str, dict[str, Any], bool]] = [
    (
        "all-new-fields",
        {
            "retryable": True,
            "attempts": 2,
            "latency_s": 0,
            "trace_id": "ab12cd34",
            "note": None,
            "timing": {"wall_s": 1.5, "cpu_s": 1},
            "tags": ["a", "bc"],
        },
        True,
    ),
    ("empty-containers", {"timing": {}, "tags": [], "note": "free text"}, True),
    ("retryable-string", {"retryable": "yes"}, False),
    ("attempts-zero", {"attempts": 0}, False),
    ("attempts-fraction", {"attempts": 1.5}, False),
    ("attempts-string", {"attempts": "3"}, False),
    ("latency-negative", {"latency_s": -0.5}, False),
    ("latency-null", {"latency_s": None}, False),
    ("trace-uppercase", {"trace_id": "AB"}, False),
    ("trace-too-long", {"trace_id": "0123456789"}, False),
    ("trace-empty", {"trace_id": ""}, False),
    ("trace-number", {"trace_id": 7}, False),
    ("note-number", {"note": 3}, False),
    ("timing-zero", {"timing": {"wall_s": 0}}, False),
    ("timing-string", {"timing": {"wall_s": "1"}}, False),
    ("timing-not-object", {"timing": []}, False),
    ("tags-number", {"tags": [1]}, False),
    ("tags-item-too-long", {"tags": ["abcde"]}, False),
    ("tags-not-array", {"tags": "a"}, False),
    ("new-kind", {"failure_kind": NEW_KIND.id, "mask_sample": True}, True),
    ("awkward-names", {"type": "t", "extra": 3, "a-b": False, "Extra": "unknown"}, True),
    ("awkward-type-number", {"type": 1}, False),
    ("awkward-extra-string", {"extra": "3"}, False),
]


def next_schema(latest: dict[str, Any]) -> dict[str, Any]:
    """The next version's schema, as its author writes it: the latest one renamed, plus the new fields
    and the new required gym member."""
    source: dict[str, Any] = json.loads(json.dumps(latest).replace(LATEST, NEXT))
    source["$defs"]["VerifyResponse"]["properties"].update(copy.deepcopy(NEW_FIELDS))
    gym = source["$defs"]["GymVerifyResponse"]
    gym_own = next(part for part in [gym, *gym.get("allOf", [])] if "properties" in part)
    gym_own["properties"][GYM_REQUIRED] = {"title": "EpisodeId", "type": "string"}
    gym_own["required"] = [*gym_own.get("required", []), GYM_REQUIRED]
    return source


def next_registry(kinds: list[FailureKindInfo]) -> list[FailureKindInfo]:
    """The registry with the new kind and the deprecation."""
    deprecation = Deprecation(NEXT, "obsoleted", None, None)
    return [*(_deprecated(k, deprecation) if k.id == DEPRECATED_KIND else k for k in kinds), NEW_KIND]


def _deprecated(kind: FailureKindInfo, deprecation: Deprecation) -> FailureKindInfo:
    return FailureKindInfo(kind.id, kind.domain, kind.brief, kind.stability, kind.added_in, deprecation)


def next_version_data() -> tuple[dict[str, dict[str, Any]], list[FailureKindInfo], dict[str, dict[str, Any]]]:
    """(bundles, registry, resolved models) of every version and the next one, in memory."""
    versions = paths.contract_versions()
    kinds = next_registry(load_registry(paths.REGISTRY_FILE, versions))
    sources = {
        v: json.loads((paths.VERSIONS_DIR / v / paths.VERIFY_RESPONSE_FILE).read_text(encoding="utf-8"))
        for v in versions
    }
    sources[NEXT] = next_schema(sources[LATEST])
    bundles = {v: bundle(s, failure_kinds_schema(kinds, v) if uses_registry(s) else None) for v, s in sources.items()}
    return bundles, kinds, resolved_models(bundles, kinds)


def documents(profile: str) -> list[tuple[str, dict[str, Any], bool]]:
    """(case, document, valid) at ``profile``: CASES on top of a minimal document of that profile."""
    echo = GYM_ECHO if profile == "gym" else {}
    return [(name, {"reward": 0, **echo, **extra}, valid) for name, extra, valid in CASES]
