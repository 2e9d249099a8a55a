"""The effect of a change on the conformance corpus: which vectors change verdict from OLD's schema to NEW's.

Only the schema part of a verdict is recomputed (strict JSON parsing does not depend on the schema). Each side's
files are re-homed under a private base URI, so two sides with the same ``$id`` never mix.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema.protocols import Validator
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource

from verify_contract.diff.sides import VERIFY_RESPONSE_FILE, Side
from verify_contract.jsonio import parse_json
from verify_contract.validation import ContractValidator
from verify_contract.vectors import Vector, load_vectors
from verify_contract.versions import PROFILE_DEFINITIONS, Profile, version_key

BASE = "https://verify-contract-diff.invalid"


@dataclass(frozen=True)
class VerdictChange:
    id: str
    profile: str
    contract_version: str
    old_valid: bool
    new_valid: bool
    tags: tuple[str, ...]
    reason: str
    """The first schema error under the side that rejects the document."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "profile": self.profile,
            "contract_version": self.contract_version,
            "old_valid": self.old_valid,
            "new_valid": self.new_valid,
            "tags": list(self.tags),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class CorpusEffect:
    vectors: int
    compared: int
    changed: list[VerdictChange]

    def as_dict(self) -> dict[str, Any]:
        return {"vectors": self.vectors, "compared": self.compared, "changed": [c.as_dict() for c in self.changed]}


def _refuse(uri: str) -> Resource[Any]:
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


def _validators(side: Side, name: str) -> dict[Profile, Validator]:
    base = f"{BASE}/{name}"
    registry: Registry[Any] = Registry(retrieve=_refuse)  # type: ignore[call-arg]
    for file_name, document in side.documents.items():
        if isinstance(document, dict):
            rehomed = copy.deepcopy(document)
            rehomed["$id"] = f"{base}/{file_name}"
            registry = registry.with_resource(rehomed["$id"], Resource.from_contents(rehomed))
    definitions = side.schema.get("$defs") or {}
    return {
        profile: ContractValidator({"$ref": f"{base}/{VERIFY_RESPONSE_FILE}#/$defs/{definition}"}, registry=registry)
        for profile, definition in PROFILE_DEFINITIONS.items()
        if definition in definitions
    }


def _first_error(validator: Validator, document: Any) -> str | None:
    try:
        error = next(iter(validator.iter_errors(document)), None)
    except Exception as failure:  # a broken schema (dangling $ref) rejects, with its reason
        return f"schema cannot be applied: {failure}"
    if error is None:
        return None
    where = "/" + "/".join(str(part) for part in error.absolute_path)
    return f"{where}: {error.message}"


def _not_after(version: str, limit: str) -> bool:
    try:
        return version_key(version) <= version_key(limit)
    except ValueError:
        return True


def corpus_effect(
    old: Side, new: Side, vectors: list[Vector] | None = None, directory: Path | None = None
) -> CorpusEffect:
    """Every vector that existed at OLD's version and whose text parses, validated under both sides with its profile.

    Vectors written for a later version than OLD are left out: under OLD their new fields are unknown keys, so
    they would all "change verdict" without telling the reviewer anything.
    """
    loaded = vectors if vectors is not None else load_vectors(directory)
    if old.version is not None:
        loaded = [v for v in loaded if _not_after(v.contract_version, old.version)]
    before, after = _validators(old, "old"), _validators(new, "new")
    changed: list[VerdictChange] = []
    compared = 0
    for vector in loaded:
        parsed = parse_json(vector.text)
        if not parsed.ok or vector.profile not in before or vector.profile not in after:
            continue
        compared += 1
        was = _first_error(before[vector.profile], parsed.document)
        now = _first_error(after[vector.profile], parsed.document)
        if (was is None) != (now is None):
            changed.append(
                VerdictChange(
                    vector.id,
                    vector.profile,
                    vector.contract_version,
                    was is None,
                    now is None,
                    vector.tags,
                    was or now or "",
                )
            )
    return CorpusEffect(len(loaded), compared, changed)
