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

from verify_contract.contract import PROFILE_DEFINITIONS, Profile, json_pointer, version_key
from verify_contract.diff.sides import VERIFY_RESPONSE_FILE, Side
from verify_contract.reference import ContractValidator, parse_json, schema_error_message
from verify_contract.vectors import Vector, load_vectors, vectors_dir

BASE = "https://verify-contract-diff.invalid"
EXPLAINED_TAGS = frozenset({"later-field-type-conflict"})
"""Vector tags that explain a verdict change the schema rules rightly call compatible (SPEC 3.6: a name an
earlier version left unknown, used with another type, then declared)."""


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
    sources: tuple[str, ...] = ()
    """Where the vectors came from: each side's own ``vectors/`` (``OLD main:vectors``), ``--vectors DIR``, or
    the copy bundled with the package when neither side has any."""

    @property
    def unexplained(self) -> list[VerdictChange]:
        """The verdict changes no explaining tag accounts for: each is a break the wire really has."""
        return [c for c in self.changed if not EXPLAINED_TAGS & set(c.tags)]

    def as_dict(self) -> dict[str, Any]:
        return {
            "vectors": self.vectors,
            "compared": self.compared,
            "sources": list(self.sources),
            "changed": [c.as_dict() for c in self.changed],
        }


def corpus_of(old: Side, new: Side, directory: Path | None = None) -> tuple[list[Vector], tuple[str, ...]]:
    """The vectors to judge a change with, and where they came from.

    ``directory`` (``--vectors``) wins. Otherwise each side contributes its own tree's ``vectors/``, so a
    reviewer on main comparing main with a branch sees the branch's new vectors as well as main's (a vector
    both sides hold unchanged counts once); a side without vectors (a bare schema file, a generated file)
    contributes none, and when neither has any the package's bundled vectors are used."""
    if directory is not None:
        return load_vectors(directory), (f"--vectors {directory}",)
    merged: dict[tuple[str, str, str, str], Vector] = {}
    sources: list[str] = []
    for name, side in (("OLD", old), ("NEW", new)):
        if side.vectors_at is None:
            continue
        sources.append(f"{name} {side.vectors_at.label}")
        for vector in side.vectors_at.load():
            merged.setdefault((vector.id, vector.profile, vector.contract_version, vector.text), vector)
    if sources:
        return list(merged.values()), tuple(sources)
    bundled = vectors_dir()
    return load_vectors(bundled), (f"bundled {bundled}",)


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
    where = json_pointer(error.absolute_path) or "/"  # the whole document: shown as "/", not as nothing
    return f"{where}: {schema_error_message(error.validator, error.validator_value, error.instance)}"


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
    sources: tuple[str, ...] = ("given",)
    if vectors is not None:
        loaded = vectors
    else:
        loaded, sources = corpus_of(old, new, directory)
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
    return CorpusEffect(len(loaded), compared, changed, sources)
