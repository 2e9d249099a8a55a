"""The differ against a catalogue of synthetic edits (tests/diff_catalogue.json), each with its expected verdict.

Every entry edits the released 1.2.0 contract with JSON Patch operations (on the schema, the generated enum
file, or the registry data) and names exactly the rules, the required bump, the broken directions and every
change (rule, file and JSON Pointer) the differ must report. The edited copy is laid out as version 1.3.0 of a
repository, next to an unchanged 1.2.0, so the registry's ``added_in: 1.3.0`` is meaningful; the registry enum
is regenerated from the edited registry unless the entry edits the enum by hand.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from verify_contract.contract import pointer_path, version_key
from verify_contract.contract._registry import parse_registry
from verify_contract.diff import RULES, Break, Report, diff_sides, load_side
from verify_contract.diff.rules import direction_label
from verify_contract.vectors import load_vectors

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = json.loads((Path(__file__).parents[1] / "diff_catalogue.json").read_text(encoding="utf-8"))
ENTRIES: list[dict[str, Any]] = CATALOGUE["entries"]
BASE, NEW = CATALOGUE["base_version"], CATALOGUE["new_version"]
VECTORS = load_vectors()
# Reported on purpose in the catalogue only through dedicated tests (test_diff_gate.py).
META_RULES = {"VERSION_BUMP_INSUFFICIENT"}


def _parent(document: Any, pointer: str) -> tuple[Any, str]:
    *head, last = pointer_path(pointer)
    for token in head:
        document = document[int(token)] if isinstance(document, list) else document[token]
    return document, last


def apply_patch(document: Any, operations: list[dict[str, Any]]) -> Any:
    """RFC 6902 add / remove / replace / move, enough for the catalogue."""
    document = copy.deepcopy(document)
    for op in operations:
        if op["op"] == "move":
            source, key = _parent(document, op["from"])
            value = source.pop(int(key)) if isinstance(source, list) else source.pop(key)
            op = {"op": "add", "path": op["path"], "value": value}
        target, key = _parent(document, op["path"])
        if op["op"] == "remove":
            del target[int(key) if isinstance(target, list) else key]
        elif isinstance(target, list):
            index = len(target) if key == "-" else int(key)
            if op["op"] == "add":
                target.insert(index, op["value"])
            else:
                target[index] = op["value"]
        else:
            if op["op"] == "replace" and key not in target:
                raise KeyError(f"replace of missing {op['path']}")
            target[key] = op["value"]
    return document


def _dump(path: Path, document: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def released(version: str, name: str) -> Any:
    return json.loads((ROOT / "schema" / "versions" / version / name).read_text(encoding="utf-8"))


def registry_data() -> Any:
    """The registry as the catalogue's base version knows it: a kind added or deprecated in a later release
    of the repository (whose version the synthetic trees do not hold) is left out or undeprecated."""
    data = yaml.safe_load((ROOT / "schema" / "registry" / "failure_kinds.yaml").read_text(encoding="utf-8"))
    base = version_key(BASE)
    kinds = [kind for kind in data["kinds"] if version_key(kind["added_in"]) <= base]
    for kind in kinds:
        if "deprecated" in kind and version_key(kind["deprecated"]["in"]) > base:
            del kind["deprecated"]
    return {**data, "kinds": kinds}


def make_tree(
    root: Path,
    version: str,
    schema: Any,
    registry: Any,
    kinds: Any | None = None,
    extra_versions: tuple[str, ...] = (),
) -> Path:
    """A repository-shaped tree: schema/versions/<version>/ and schema/registry/failure_kinds.yaml.

    The enum file is regenerated from the registry unless ``kinds`` is given.
    """
    version_dir = root / "schema" / "versions" / version
    for other in extra_versions:
        shutil.copytree(ROOT / "schema" / "versions" / other, root / "schema" / "versions" / other)
    schema = copy.deepcopy(schema)
    schema["$id"] = schema["$id"].replace(f"/{BASE}/", f"/{version}/")
    _dump(version_dir / "verify_response.schema.json", schema)
    registry_text = yaml.safe_dump(registry, sort_keys=False, allow_unicode=True)
    (root / "schema" / "registry").mkdir(parents=True, exist_ok=True)
    (root / "schema" / "registry" / "failure_kinds.yaml").write_text(registry_text, encoding="utf-8")
    if kinds is None:
        kinds = released(BASE, "failure_kinds.schema.json")
        kinds["$id"] = kinds["$id"].replace(f"/{BASE}/", f"/{version}/")
        parsed = parse_registry(registry_text, [BASE, version, *extra_versions])
        kinds["enum"] = list(parsed.at(version))
    _dump(version_dir / "failure_kinds.schema.json", kinds)
    return version_dir


def run_entry(entry: dict[str, Any], tmp_path: Path) -> Report:
    schema = apply_patch(released(BASE, "verify_response.schema.json"), entry.get("base", []))
    registry = apply_patch(registry_data(), entry.get("base_registry", []))
    old_dir = make_tree(tmp_path / "old", BASE, schema, registry)
    new_kinds = None
    if "kinds" in entry:
        new_kinds = apply_patch(json.loads((old_dir / "failure_kinds.schema.json").read_text("utf-8")), entry["kinds"])
    new_dir = make_tree(
        tmp_path / "new",
        NEW,
        apply_patch(schema, entry.get("schema", [])),
        apply_patch(registry, entry.get("registry", [])),
        new_kinds,
        extra_versions=(BASE,),
    )
    return diff_sides(load_side(str(old_dir)), load_side(str(new_dir)), vectors=VECTORS)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Report]:
    """Each entry diffed once for the tests below."""
    return {entry["name"]: run_entry(entry, tmp_path_factory.mktemp(entry["name"])) for entry in ENTRIES}


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_catalogue_entry(entry: dict[str, Any], reports: dict[str, Report]) -> None:
    report = reports[entry["name"]]
    rules = sorted({c.rule for c in report.changes} - META_RULES)
    shown = "\n".join(f"{c.rule} {c.where} {c.message}" for c in report.changes)
    assert rules == entry["rules"], shown
    assert report.required_bump.value == entry["bump"], shown
    assert direction_label(report.breaks) == entry["breaks"], shown
    assert sorted(f"{c.rule} {c.where}" for c in report.changes if c.rule not in META_RULES) == entry["changes"], shown
    assert report.corpus is not None
    changed = sorted(v.id for v in report.corpus.changed)
    if "corpus_changed" in entry:
        assert changed == sorted(entry["corpus_changed"])
    assert set(entry.get("corpus_includes", [])) <= set(changed)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_corpus_effect_never_contradicts_the_verdict(entry: dict[str, Any], reports: dict[str, Report]) -> None:
    """A vector valid under OLD and invalid under NEW is an old producer's document a new consumer rejects: the
    report must say backward is broken; invalid -> valid is a new producer's document an old consumer rejects:
    forward. A change reported as safe while a real document changes verdict fails here."""
    report = reports[entry["name"]]
    assert report.corpus is not None
    for vector in report.corpus.changed:
        direction = Break.BACKWARD if vector.old_valid else Break.FORWARD
        assert direction in report.breaks, f"{vector.id} changes verdict but {direction.value} is not reported broken"


def test_catalogue_is_large_and_names_are_unique() -> None:
    names = [e["name"] for e in ENTRIES]
    assert len(names) == len(set(names))
    assert len(ENTRIES) >= 120


def test_every_rule_is_exercised() -> None:
    """A rule no catalogue entry triggers is untested; VERSION_BUMP_INSUFFICIENT has its own tests."""
    used = {rule for e in ENTRIES for rule in e["rules"]}
    assert set(RULES) - used == META_RULES
    assert used <= set(RULES)


@pytest.mark.parametrize("name", ["registry-kind-removed", "registry-kind-backdated"])
def test_forbidden_changes_fail_even_with_a_major_bump(name: str, reports: dict[str, Report]) -> None:
    report = reports[name]
    assert report.forbidden and report.bump_ok is False
