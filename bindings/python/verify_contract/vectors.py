"""The language-neutral conformance vectors: locate, load and check them against their own schema."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from verify_contract.contract import Profile

ENV_OVERRIDE = "VERIFY_CONTRACT_VECTORS"
SCHEMA_FILE = "vectors.schema.json"


def vectors_dir() -> Path:
    """``$VERIFY_CONTRACT_VECTORS``, else the copy in the installed wheel, else the source checkout."""
    override = os.environ.get(ENV_OVERRIDE)
    if override:
        return Path(override)
    packaged = Path(str(resources.files("verify_contract"))) / "_vectors"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[3] / "vectors"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"no conformance vectors found; set {ENV_OVERRIDE} to their directory")


@dataclass(frozen=True)
class Vector:
    file: str
    id: str
    description: str
    contract_version: str
    profile: Profile
    valid: bool
    findings: tuple[str, ...]
    effective_mask: bool | None
    round_trip: bool
    tags: tuple[str, ...]
    instance: Any = None
    instance_json: str | None = None
    pointers: tuple[tuple[str, str], ...] | None = None
    """(rule, JSON Pointer) of every error, sorted, when the vector pins where its errors are."""

    @property
    def text(self) -> str:
        """The document as JSON text, as a producer would send it."""
        if self.instance_json is not None:
            return self.instance_json
        return json.dumps(self.instance, ensure_ascii=False)

    @property
    def has_instance(self) -> bool:
        return self.instance_json is None


class VectorFileError(ValueError):
    """A vector file breaks vectors.schema.json or repeats an id."""


def load_vectors(directory: Path | None = None) -> list[Vector]:
    directory = directory or vectors_dir()
    files = [
        (path.name, path.read_text(encoding="utf-8"))
        for path in sorted(directory.glob("*.json"))
        if path.name != SCHEMA_FILE
    ]
    return parse_vector_files(json.loads((directory / SCHEMA_FILE).read_text(encoding="utf-8")), files)


def parse_vector_files(schema: Any, files: list[tuple[str, str]]) -> list[Vector]:
    """Vectors from ``(file name, text)`` pairs (a directory, or a git revision's files), checked against
    ``schema`` (vectors.schema.json); ``VectorFileError`` names the first file that breaks it."""
    validator = Draft202012Validator(schema)
    loaded: list[Vector] = []
    seen: set[str] = set()
    for name, text in files:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise VectorFileError(f"{name}: not JSON: {error}") from error
        errors = sorted(validator.iter_errors(data), key=str)
        if errors:
            raise VectorFileError(f"{name}: {errors[0].message} at {list(errors[0].absolute_path)}")
        for test in data["tests"]:
            if test["id"] in seen:
                raise VectorFileError(f"{name}: duplicate vector id {test['id']!r}")
            seen.add(test["id"])
            loaded.append(
                Vector(
                    file=name,
                    id=test["id"],
                    description=test["description"],
                    contract_version=test["contract_version"],
                    profile=test["profile"],
                    valid=test["valid"],
                    findings=tuple(test["findings"]),
                    effective_mask=test["effective_mask"],
                    round_trip=test.get("round_trip", test["valid"]),
                    tags=tuple(test.get("tags", ())),
                    instance=test.get("instance"),
                    instance_json=test.get("instance_json"),
                    pointers=_pointers(test),
                )
            )
    return loaded


def _pointers(test: dict[str, Any]) -> tuple[tuple[str, str], ...] | None:
    if "pointers" not in test:
        return None
    return tuple((item["rule"], item["pointer"]) for item in test["pointers"])
