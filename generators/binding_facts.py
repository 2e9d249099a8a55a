"""What the language generators share: each version's object types merged across profiles, and
the facts their hand-written runtimes read (profiles, mask locations, limits, the fallback rule), all from
the resolved models."""

from __future__ import annotations

from typing import Any

from generators import paths
from verify_contract.codegen.view import build_view
from verify_contract.contract._model import MASK_ROLES, mask_locations


def unlisted_kind(kind: str) -> dict[str, Any]:
    """A registered value the registry has no entry for (only possible in a hand-made model)."""
    return {"id": kind, "brief": "", "stability": "stable", "added_in": "", "deprecated": None}


def merged_types(model: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, str]]:
    """(structs, open enums, profile -> root type) of every profile of a version, each type once,
    in declaration order (profile by profile: the root, then each object where first met)."""
    structs: dict[str, dict[str, Any]] = {}
    unions: dict[str, dict[str, Any]] = {}
    roots: dict[str, str] = {}
    registered = {kind["id"]: kind for kind in (model["failure_kinds"] or {}).get("registered", [])}
    for profile in model["profiles"]:
        view = build_view(model, profile, named_objects=True)
        roots[profile] = view["root"]
        for obj in reversed(view["objects"]):
            structs.setdefault(obj["name"], {**obj, "profile": profile if obj["name"] == view["root"] else None})
            for member in obj["members"]:
                enum = member["open_enum"]
                if enum is not None and enum["name"] not in unions:
                    unions[enum["name"]] = {
                        "name": enum["name"],
                        "description": member["description"],
                        "registered": [registered.get(i, unlisted_kind(i)) for i in enum["registered"]],
                        "pattern": member["checks"].get("pattern"),
                    }
    return list(structs.values()), list(unions.values()), roots


def runtime_facts(models: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What every binding's hand-written runtime reads instead of naming the contract's shape: the newest
    version's profiles (name -> ``$defs`` root, with its description), the default profile, the I-JSON
    nesting limit, the rule of a violation no other rule names, and where the effective mask is read.
    The mask locations are ``contract.mask_locations`` of every version (the Python runtime's and
    ``verify-contract generate``'s resolver), in role order."""
    versions = sorted(models, key=paths.version_key)
    latest = models[versions[-1]]
    view = build_view(latest, latest["default_profile"], mask_locations(models[v]["roles"] for v in versions))
    fallback = [rule["id"] for rule in latest["rules"] if rule.get("scope") == "fallback"]
    if len(fallback) != 1:
        raise ValueError(f"contract {latest['version']}: expected one rule with scope fallback, found {fallback}")
    profiles = [
        {
            "name": name,
            "definition": facts["definition"],
            "description": latest["definitions"][facts["definition"]].get("description") or "",
        }
        for name, facts in latest["profiles"].items()
    ]
    return {
        "profiles": profiles,
        "default_profile": latest["default_profile"],
        "max_depth": latest["limits"]["max_depth"],
        "fallback_rule": fallback[0],
        "mask_paths": [view[role]["path"] for role in MASK_ROLES if view[role] is not None],
    }
