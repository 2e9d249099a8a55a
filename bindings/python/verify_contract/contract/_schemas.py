"""The released schema files, loaded from the package and resolved offline."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verify_contract.contract._model import contract_model
from verify_contract.contract._versions import PROFILE_DEFINITIONS, Profile, check_profile, check_version

if TYPE_CHECKING:
    from referencing import Registry, Resource

_SCHEMAS = Path(__file__).parent.with_name("generated") / "schemas"
"""The released schema files, beside this module (importlib.resources would cost ~8 ms of start-up)."""
VERIFY_RESPONSE_FILE = "verify_response.schema.json"
FAILURE_KINDS_FILE = "failure_kinds.schema.json"


def _refuse_retrieval(uri: str) -> Resource[Any]:
    from referencing.exceptions import NoSuchResource

    # Every schema the contract needs is in the registry; anything else is a bug, never a download.
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # attrs-generated __init__


@cache
def schema_document(version: str, name: str = VERIFY_RESPONSE_FILE) -> dict[str, Any]:
    """One released schema file of a version, as shipped in the package."""
    check_version(version)
    path = _SCHEMAS / version / name
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def _version_files(version: str) -> list[str]:
    directory = _SCHEMAS / version
    return sorted(entry.name for entry in directory.iterdir() if entry.name.endswith(".schema.json"))


@cache
def schema_registry(version: str) -> Registry[Any]:
    """A ``referencing`` registry holding every file of the version, and nothing it would fetch."""
    return registry_of([schema_document(version, name) for name in _version_files(version)])


def registry_of(documents: list[dict[str, Any]]) -> Registry[Any]:
    """A registry of these schema documents (by their ``$id``) that refuses to fetch anything else."""
    from referencing import Registry, Resource  # ~20 ms: only the reference validator needs it

    resources_ = [Resource.from_contents(document) for document in documents]
    return Registry(retrieve=_refuse_retrieval).with_resources(  # type: ignore[call-arg]
        (resource.id() or "", resource) for resource in resources_
    )


def profile_schema(version: str, profile: Profile) -> dict[str, Any]:
    """A schema that validates one profile of one version: a ``$ref`` into the released file."""
    return profile_reference(schema_document(version)["$id"], profile)


def profile_reference(base: str, profile: Profile) -> dict[str, Any]:
    """A schema that validates one profile of the contract file whose ``$id`` is ``base``."""
    check_profile(profile)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": f"{base}#/$defs/{PROFILE_DEFINITIONS[profile]}",
    }


def declared_fields(version: str) -> frozenset[str]:
    """Top-level members every profile declares at ``version`` (the core of the contract)."""
    model = contract_model(version)
    members = [{f.name for f in model.fields_of(p) if not f.parent} for p in model.profiles]
    return frozenset(set.intersection(*members))


def registered_failure_kinds(version: str) -> frozenset[str]:
    return contract_model(check_version(version)).registered_kinds()
