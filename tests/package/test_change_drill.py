"""The change drill: the first contract change after the latest version, made the way a maintainer makes it.

In a temporary copy of the repository it adds the synthetic next version of tests/drill_model.py: one
optional constrained field of each JSON type (boolean, integer with ``minimum``, number with ``minimum``,
string with ``pattern`` and ``maxLength``, nullable string, object with a constrained member, array with
typed items), members named like keywords, one new required member in the gym profile, one newly
registered and one newly deprecated failure kind, and
vectors for them. It edits only schema/, vectors/ and CHANGELOG.md, runs the generators, and proves:

(a) ``check`` and ``check --reference-only`` give identical reports on lines that violate and satisfy
    each new constraint (and on lines generated from the new version's resolved model);
(b) the pydantic models and TypedDicts agree with the reference on the new vectors; the TypeScript, Go
    and Rust bindings build and agree too;
(c) every other file that changed is a generator's output: nothing else needed a hand edit.

Run it alone with ``pytest -m change_drill``.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generators import paths
from verify_contract.contract._model import model_from_data

from corpus_lines import model_lines
from drill_model import CASES, DEPRECATED_KIND, GYM_REQUIRED, LATEST, NEW_FIELDS, NEW_KIND, NEXT, documents, next_schema
from repo_copy import ROOT, copy_repository, not_copied, run_in

# What a maintainer may edit by hand for a contract change (README/docs prose aside).
HAND_EDITABLE = ("schema/", "vectors/", "CHANGELOG.md", "SPEC.md")
INVALID_CASES = sum(not valid for _, _, valid in CASES)


def _run(copy: Path, *args: str, timeout: int = 1200, **env: str) -> subprocess.CompletedProcess[str]:
    return run_in(copy, *args, timeout=timeout, **env)


def _hand_edit(copy: Path) -> None:
    """What the maintainer writes: the new version's schema, the registry, vectors and the changelog."""
    source = json.loads((copy / "schema" / "versions" / LATEST / "verify_response.schema.json").read_text())
    target = copy / "schema" / "versions" / NEXT
    target.mkdir()
    schema = next_schema(source)
    (target / "verify_response.schema.json").write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n")

    registry = copy / "schema" / "registry" / "failure_kinds.yaml"
    text = registry.read_text()
    anchor = f"  - id: {DEPRECATED_KIND}\n"
    assert anchor in text
    start = text.index(anchor)
    stop = text.index("\n  - id:", start + 1) if "\n  - id:" in text[start + 1 :] else len(text)
    entry = text[start:stop].rstrip("\n")
    text = text[:start] + entry + f"\n    deprecated: {{in: {NEXT}, reason: obsoleted}}\n" + text[stop:].lstrip("\n")
    text = text.rstrip("\n") + (
        f"\n  - id: {NEW_KIND.id}\n    domain: {NEW_KIND.domain}\n    brief: {NEW_KIND.brief}\n"
        f"    stability: {NEW_KIND.stability}\n    added_in: {NEXT}\n"
    )
    registry.write_text(text)

    (copy / "vectors" / "drill.json").write_text(json.dumps(_vectors(), indent=2) + "\n")
    changelog = copy / "CHANGELOG.md"
    head, _, tail = changelog.read_text().partition(f"## {LATEST}")
    changelog.write_text(f"{head}## {NEXT} (minor)\n\nThe change drill's fields.\n\n## {LATEST}{tail}")


def _vector(case_id: str, profile: str, document: dict[str, Any], valid: bool, findings: list[str]) -> dict[str, Any]:
    return {
        "id": case_id,
        "description": case_id,
        "contract_version": NEXT,
        "profile": profile,
        "instance": document,
        "valid": valid,
        "findings": findings,
        "effective_mask": bool(document.get("mask_sample", False)) if valid else None,
    }


def _vectors() -> dict[str, Any]:
    tests = [
        _vector(f"drill-{profile}-{case}", profile, document, valid, [] if valid else ["schema-violation"])
        for profile in ("core", "gym")
        for case, document, valid in documents(profile)
    ]
    gym = documents("gym")[0][1]
    missing = {k: v for k, v in gym.items() if k != GYM_REQUIRED}
    deprecated = {"reward": 0, "failure_kind": DEPRECATED_KIND}
    tests += [
        _vector("drill-gym-required-member-missing", "gym", missing, False, ["gym-field-required"]),
        _vector("drill-deprecated-kind", "core", deprecated, True, ["failure-kind-deprecated"]),
    ]
    return {"description": "the change drill's synthetic version", "spec": "SPEC.md#rules", "tests": tests}


def _digests(root: Path) -> dict[str, str]:
    found = {}
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        if path.is_file() and not not_copied(relative) and not path.name.endswith(".so"):
            found[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


# Runs the generators of the copy with only the Python outputs (model, schemas, pydantic, TypedDicts,
# registry constants, SPEC tables), and prints every artifact path. The Go, Rust and TypeScript
# generators run in test_bindings_build_and_agree.
PYTHON_GENERATORS = """
import json, sys
import generators.__main__ as g
g.EXTRA_GENERATOR_MODULES = ()
g.GENERATED_ONLY_GLOBS = g.GENERATED_ONLY_GLOBS[:1]
artifacts = g.build_artifacts()
status = g.main([])
print(json.dumps(sorted(str(p.relative_to(g.paths.ROOT)) for p in artifacts)))
sys.exit(status)
"""


@pytest.fixture(scope="module")
def drill(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[str]]]:
    copy = copy_repository(tmp_path_factory.mktemp("drill") / "repo", with_builds=True)
    _hand_edit(copy)
    done = _run(copy, sys.executable, "-c", PYTHON_GENERATORS)
    assert done.returncode == 0, done.stderr[-3000:]
    artifacts = json.loads(done.stdout.strip().splitlines()[-1])
    yield copy, artifacts


def _check(copy: Path, profile: str, lines: list[bytes], *extra: str) -> tuple[int, dict[str, Any]]:
    path = copy / f"drill-{profile}.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    args = ("--contract-version", NEXT, "--profile", profile, "--format", "json", "--max-findings", "1000000")
    done = _run(copy, sys.executable, "-m", "verify_contract", "check", *args, *extra, str(path))
    assert done.returncode in (0, 1), done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout)
    report.pop("precheck")  # which path ran ("compiled" or "off"): the one thing the two runs must not share
    return done.returncode, report


def _lines(copy: Path, profile: str) -> list[bytes]:
    model_file = copy / "bindings" / "python" / "verify_contract" / "generated" / "model" / f"{NEXT}.json"
    model = model_from_data(json.loads(model_file.read_text()))
    assert {f"/{name}" for name in NEW_FIELDS} <= {f.pointer for f in model.fields}
    cases = documents(profile)
    lines = [json.dumps(document).encode() for _, document, _ in cases]
    lines.append(json.dumps({**cases[0][1], "failure_kind": DEPRECATED_KIND}).encode())
    if profile == "gym":
        lines.append(json.dumps({k: v for k, v in cases[0][1].items() if k != GYM_REQUIRED}).encode())
    return lines + model_lines(model, profile)


@pytest.mark.parametrize("profile", ["core", "gym"])
def test_check_agrees_with_reference_only(drill: tuple[Path, list[str]], profile: str) -> None:
    copy, _ = drill
    lines = _lines(copy, profile)
    fast_status, fast = _check(copy, profile, lines)
    slow_status, slow = _check(copy, profile, lines, "--reference-only")
    assert (fast_status, fast) == (slow_status, slow)
    assert fast["invalid"] > INVALID_CASES and fast["valid"] > len(CASES) - INVALID_CASES
    assert fast["rules"].get("failure-kind-deprecated", 0) >= 1
    probe = _run(
        copy,
        sys.executable,
        "-c",
        "from verify_contract.check import _fastpath as fastpath; "
        "from verify_contract.contract import resolve_contract; "
        f"print(fastpath.available(), fastpath.field_table(resolve_contract({NEXT!r}, {profile!r})) is not None)",
    )
    assert probe.stdout.split() == ["True", "True"], probe.stderr  # the pre-check did run on the new version


def _vector_tests(copy: Path, selection: str) -> subprocess.CompletedProcess[str]:
    return _run(copy, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", selection,
                "tests/conformance/test_conformance_vectors.py")  # fmt: skip


def _passed(done: subprocess.CompletedProcess[str]) -> int:
    found = re.search(r"(\d+) passed", done.stdout)
    return int(found.group(1)) if found else 0


def test_reference_holds_the_new_vectors(drill: tuple[Path, list[str]]) -> None:
    copy, _ = drill
    done = _vector_tests(copy, "drill and (reference_validator or effective_mask)")
    assert done.returncode == 0 and _passed(done) >= 2 * len(CASES) + 2, done.stdout[-3000:]


def test_python_bindings_agree_with_reference(drill: tuple[Path, list[str]]) -> None:
    copy, _ = drill
    done = _vector_tests(copy, "drill")
    # every drill vector, through the reference, pydantic (validate, JSON, round trip) and the TypedDicts
    assert done.returncode == 0 and _passed(done) >= 3 * len(CASES), done.stdout[-3000:]


def test_only_sources_were_edited_by_hand(drill: tuple[Path, list[str]]) -> None:
    copy, artifacts = drill
    before, after = _digests(ROOT), _digests(copy)
    changed = {path for path in after.keys() | before.keys() if before.get(path) != after.get(path)}
    changed -= {"drill-core.jsonl", "drill-gym.jsonl"}  # the drill's own inputs to check
    generated = set(artifacts)
    hand = sorted(changed - generated)
    assert hand and all(path.startswith(HAND_EDITABLE) for path in hand), hand
    assert any(path.startswith("bindings/python/verify_contract/generated/") for path in changed & generated)


# What the package calls "latest", read in the copy after the generators ran: nothing was edited by hand.
LATEST_FACTS = """
import contextlib, inspect, json, sys, tempfile
from pathlib import Path
from verify_contract import models, typeddicts
from verify_contract.codegen import read_file_header
from verify_contract.conformance import check_consumer
from verify_contract.conformance.consumer import profile_echo
from verify_contract.generated import latest
from verify_contract import effective_mask
from verify_contract.upgrade import UpgradeError, upgrade
from verify_contract.contract._versions import LATEST_VERSION
from verify_contract.cli import main
document, broken = json.loads(sys.argv[1]), json.loads(sys.argv[2])
try:
    upgrade(broken)
    refused = False
except UpgradeError:
    refused = True
with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(sys.stderr):
    generated = main(["generate", "python-pydantic", "--out", out])
    header = read_file_header(next(Path(out).glob("*.py")))
consumer = check_consumer(effective_mask, reads="mask")
print(json.dumps({
    "latest": [LATEST_VERSION, latest.CONTRACT_VERSION],
    "models": [models.VerifyResponse.__module__, typeddicts.VerifyResponse.__module__],
    "model_fields": sorted(f.alias or n for n, f in models.VerifyResponse.model_fields.items()),
    "typeddict_keys": sorted(typeddicts.VerifyResponse.__annotations__),
    "upgraded": upgrade(document).document == document,
    "upgrade_refuses": refused,
    "upgrade_profile": inspect.signature(upgrade).parameters["profile"].default,
    "echo": sorted(profile_echo(LATEST_VERSION, "gym")),
    "consumer": [consumer.version, consumer.ok],
    "generate": [generated, header.contract_version, header.profile],
}))
"""


def test_the_latest_names_follow_the_new_version(drill: tuple[Path, list[str]]) -> None:
    """The package's "latest" names (``models``, ``typeddicts``, ``LATEST_VERSION``), ``upgrade``, the
    conformance kit and ``generate``'s default are the new version's, with no hand edit."""
    copy, _ = drill
    document = documents("core")[0][1]
    broken = next(document for case, document, _ in documents("core") if case == "attempts-zero")
    done = _run(copy, sys.executable, "-c", LATEST_FACTS, json.dumps(document), json.dumps(broken))
    assert done.returncode == 0, done.stderr[-3000:]
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    module = f"verify_contract.generated.{paths.module_name(NEXT)}"
    assert facts["latest"] == [NEXT, NEXT]
    assert facts["models"] == [f"{module}.models", f"{module}.typeddicts"]
    assert set(NEW_FIELDS) <= set(facts["model_fields"]) and set(NEW_FIELDS) <= set(facts["typeddict_keys"])
    assert facts["upgraded"] and facts["upgrade_refuses"]  # valid at the new version; its new minimum holds
    assert facts["upgrade_profile"] == model_from_data(_next_model(copy)).default_profile
    assert GYM_REQUIRED in facts["echo"]
    assert facts["consumer"] == [NEXT, True]
    assert facts["generate"] == [0, NEXT, model_from_data(_next_model(copy)).default_profile]


def _next_model(copy: Path) -> dict[str, Any]:
    path = copy / "bindings" / "python" / "verify_contract" / "generated" / "model" / f"{NEXT}.json"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_bindings_build_and_agree(drill: tuple[Path, list[str]]) -> None:
    copy, _ = drill
    done = _run(copy, sys.executable, "-m", "generators")
    assert done.returncode == 0, done.stderr[-3000:]
    for language in ("typescript", "go", "rust"):
        built = _run(copy, "bash", f"bindings/{language}/ci.sh", timeout=1800)
        assert built.returncode == 0, f"{language}: {built.stdout[-1500:]}{built.stderr[-1500:]}"
    agree = _run(
        copy,
        *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/bindings/test_cross_language.py"),
        VERIFY_CONTRACT_REQUIRE_ALL_LANGUAGES="1",
    )
    assert agree.returncode == 0, agree.stdout[-3000:]
