"""The templates take any field the model can describe: a synthetic next version (one optional
constrained field of each JSON type, a nested object, typed array items, a new required gym member,
a new registered and a newly deprecated kind) renders for every target, the repository's Go and Rust
bindings build with it, and the generated decoders agree with hand-written expectations on documents
that satisfy and break each new constraint.

The next version is resolved in memory (tests/drill_model.py): nothing in the repository changes.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from languages import REQUIRE_ALL
from python_targets import PYTHON_TARGETS, decoder, import_path, render_python_target

from generators import go_bindings, rust_bindings
from generators.registry import FailureKindInfo
from verify_contract.codegen import Request, render
from verify_contract.reference._jsonio import json_equal

from build_dirs import cargo_lock, keep
from drill_model import GYM_REQUIRED, NEW_FIELDS, NEXT, documents, next_version_data

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def next_version() -> tuple[dict[str, dict[str, Any]], list[FailureKindInfo], dict[str, dict[str, Any]]]:
    return next_version_data()


def test_model_holds_every_new_field(next_version: Any) -> None:
    _, _, models = next_version
    fields = {f["pointer"]: f for f in models[NEXT]["fields"]}
    assert fields["/attempts"]["constraints"] == {"minimum": 1}
    assert fields["/timing/wall_s"]["constraints"] == {"exclusiveMinimum": 0}
    assert fields["/tags"]["constraints"] == {"items": {"type": "string", "maxLength": 4}}
    assert "gym" in fields["/episode_id"]["required_in"]
    registered = {k["id"]: k for k in models[NEXT]["failure_kinds"]["registered"]}
    assert "sandbox_evicted" in registered and registered["kill_shaped"]["deprecated"] is not None


@pytest.mark.parametrize("profile", ["core", "gym"])
@pytest.mark.parametrize("target", PYTHON_TARGETS)
def test_python_targets_judge_the_new_fields(next_version: Any, target: str, profile: str, tmp_path: Path) -> None:
    bundles, _, models = next_version
    path = render_python_target(target, NEXT, profile, tmp_path, model=models[NEXT], schema=bundles[NEXT])
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout
    decode = decoder(import_path(path), target, profile)
    wrong = []
    for case, document, valid in documents(profile):
        try:
            decode(copy.deepcopy(document))
            accepted = True
        except Exception:  # each target raises its own error type
            accepted = False
        if accepted is not valid:
            wrong.append(case)
    assert wrong == []
    if profile == "gym":
        missing = {k: v for k, v in documents("gym")[0][1].items() if k != GYM_REQUIRED}
        with pytest.raises(Exception):  # noqa: B017 - any of the targets' error types
            decode(missing)


@pytest.mark.parametrize("target", ["typescript", "go", "rust", "jsonschema"])
def test_other_targets_render_the_new_fields(next_version: Any, target: str) -> None:
    bundles, _, models = next_version
    (text,) = render(Request(target, NEXT, "gym", model=models[NEXT], schema=bundles[NEXT])).values()
    for name in [*NEW_FIELDS, GYM_REQUIRED, "wall_s"]:
        assert name in text, (target, name)


def _copy_binding(language: str, destination: Path) -> Path:
    source = ROOT / "bindings" / language
    built = {"target", "bin", "node_modules", "dist"}  # build output at the top level only (src/bin is source)

    def ignore(directory: str, names: list[str]) -> set[str]:
        return built & set(names) if Path(directory) == source else set()

    shutil.copytree(source, destination, ignore=ignore)
    return destination


def _write(files: dict[Path, str], language_root: Path, copy_root: Path) -> None:
    for path, text in files.items():
        target = copy_root / path.relative_to(language_root)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _vector_file(directory: Path) -> None:
    tests = []
    for profile in ("core", "gym"):
        for case, document, valid in documents(profile):
            tests.append(
                {
                    "id": f"{profile}-{case}",
                    "description": case,
                    "contract_version": NEXT,
                    "profile": profile,
                    "instance": document,
                    "valid": valid,
                    "findings": [],
                    "effective_mask": bool(document.get("mask_sample", False)) if valid else None,
                }
            )
    directory.mkdir()
    (directory / "drill.json").write_text(json.dumps({"description": "drill", "spec": "SPEC.md#x", "tests": tests}))


def _judge(output: str) -> None:
    wrong = []
    for line in (json.loads(text) for text in output.splitlines() if text.strip()):
        profile, case = line["id"].split("-", 1)
        (document, valid) = next((d, v) for c, d, v in documents(profile) if c == case)
        if line["valid"] is not valid:
            wrong.append(line["id"])
        elif valid and not json_equal(
            json.loads(line["encoded"]) if isinstance(line["encoded"], str) else line["encoded"], document
        ):
            wrong.append(f"{line['id']} (round trip)")
    assert wrong == []


@pytest.mark.toolchain
def test_repository_go_binding_builds_and_agrees(next_version: Any, tmp_path: Path) -> None:
    if shutil.which("go") is None:
        if REQUIRE_ALL:
            pytest.fail("go is missing")
        pytest.skip("go is not installed")
    bundles, kinds, models = next_version
    go = _copy_binding("go", tmp_path / "go")
    _write(go_bindings.artifacts(bundles, kinds, models), go_bindings.GO_ROOT, go)
    subprocess.run(["go", "vet", "./..."], cwd=go, check=True, capture_output=True)
    _vector_file(tmp_path / "vectors")
    done = subprocess.run(
        ["go", "run", "./cmd/conformance", str(tmp_path / "vectors")], cwd=go, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    _judge(done.stdout)


@pytest.mark.toolchain
def test_repository_rust_binding_builds_and_agrees(next_version: Any, tmp_path: Path) -> None:
    if shutil.which("cargo") is None:
        if REQUIRE_ALL:
            pytest.fail("cargo is missing")
        pytest.skip("cargo is not installed")
    bundles, kinds, models = next_version
    rust = _copy_binding("rust", tmp_path / "rust")
    _write(rust_bindings.artifacts(bundles, kinds, models), rust_bindings.RUST_DIR, rust)
    subprocess.run(["cargo", "fmt", "--check"], cwd=rust, check=True, capture_output=True)
    with cargo_lock() as target:
        build = ["cargo", "build", "--quiet", "--locked", "--bin", "conformance"]
        built = subprocess.run(
            build, cwd=rust, capture_output=True, text=True, env={**os.environ, "CARGO_TARGET_DIR": str(target)}
        )
        assert built.returncode == 0, built.stderr[-3000:]
        runner = keep(target / "debug" / "conformance", tmp_path)
    _vector_file(tmp_path / "vectors")
    done = subprocess.run([runner, tmp_path / "vectors"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    _judge(done.stdout)
