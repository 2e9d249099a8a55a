"""The real NeMo Gym releases as oracles (`make gym-oracle`; SPEC.md section 4.3).

Each release's own `BaseVerifyResponse` (installed from PyPI into a cached venv, tests/gym_oracle/
environments.py) builds a document from every case of a generated grid (grid.py) and writes it the ways
Gym writes rows (driver.py). Every emitted document must be valid for the release's contract version
under the `gym` and `core` profiles, or break only rules that SPEC 4.3 lists for that release and that a
vector tagged `gym-deviation` at that version shows. In the other direction every valid contract document
of that version (the vectors) is read with the release's model: it must be accepted with every contract
value unchanged, or differ only in a way SPEC 4.3's second table names. Both tables are checked both
ways: a documented deviation the oracle no longer sees fails too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from verify_contract.contract._schemas import declared_fields, registered_failure_kinds
from verify_contract.reference._jsonio import json_equal, parse_json
from verify_contract.reference._validation import validate
from verify_contract.vectors import Vector, load_vectors

from . import grid
from .environments import CACHE, PYTHON_ENV, RELEASES, REPO, find_python_313, gym_python

pytestmark = pytest.mark.skipif(
    os.environ.get("VERIFY_CONTRACT_GYM_ORACLE") != "1",
    reason="the Gym oracle tier installs nemo-gym from PyPI: run it with `make gym-oracle`",
)

DRIVER = Path(__file__).resolve().parent / "driver.py"
PROFILES = ("gym", "core")
DEVIATION_TAG = "gym-deviation"
# The contract's values whose defaults a reader must supply when they are absent (SPEC 4.2, item 4).
DEFAULTS: dict[str, Any] = {"mask_sample": False, "failure_kind": None, "failure_reason": None}


@dataclass
class OracleRun:
    release: str
    version: str
    output: dict[str, Any]
    documents: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)


def _as_gym_document(vector: Vector) -> tuple[str, tuple[str, ...]] | None:
    """The vector as a `gym` document of its version, and the error rules the reference finds in it.

    A `gym` vector is taken as it is. A `core` one whose text parses to an object gets Gym's request echo
    (`responses_create_params`, `response`), unless it already has its own; one whose verdict the echo
    changes (a `gym` document missing the echo) is left out."""
    if vector.profile == "gym":
        return vector.text, _error_rules(vector.text, vector.contract_version, "gym")
    parsed = parse_json(vector.text)
    if not isinstance(parsed.document, dict):
        return None
    echoed = {"responses_create_params": grid.REQUEST_ECHO, "response": grid.response(), **parsed.document}
    text = json.dumps(echoed, ensure_ascii=False)
    rules = _error_rules(text, vector.contract_version, "gym")
    return (text, rules) if bool(rules) != vector.valid else None


def contract_documents(version: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Every vector of `version` that makes a `gym` document: id -> (text, error rules; none when valid)."""
    documents: dict[str, tuple[str, tuple[str, ...]]] = {}
    for vector in load_vectors():
        if vector.contract_version == version:
            made = _as_gym_document(vector)
            if made is not None:
                documents[vector.id if vector.profile == "gym" else f"{vector.id}+echo"] = made
    return documents


@pytest.fixture(scope="module")
def runs() -> dict[str, OracleRun]:
    python = find_python_313()
    if python is None:
        pytest.fail(f"no CPython 3.13 found: install one (pyenv install 3.13) or set {PYTHON_ENV}")
    cases = list(grid.cases())
    found: dict[str, OracleRun] = {}
    for release, version in RELEASES.items():
        documents = contract_documents(version)
        request = {"cases": cases, "documents": [{"id": key, "text": text} for key, (text, _) in documents.items()]}
        done = subprocess.run(
            [str(gym_python(release, python)), str(DRIVER)],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=1800,
        )
        assert done.returncode == 0, f"driver in nemo-gym {release} failed:\n{done.stderr[-4000:]}"
        found[release] = OracleRun(release, version, json.loads(done.stdout), documents)
    return found


def _error_rules(text: str, version: str, profile: str) -> tuple[str, ...]:
    parsed = parse_json(text)
    if parsed.finding is not None:
        return (parsed.finding.rule,)
    return tuple(sorted({finding.rule for finding in validate(parsed.document, version, profile).errors}))


def _spec_section() -> str:
    spec = (REPO / "SPEC.md").read_text(encoding="utf-8")
    start = spec.index('<a id="producer-deviations"></a>')
    return spec[start : spec.index("<a id=", start + 1)]


def _spec_table(heading: str) -> set[tuple[str, str]]:
    """(release, id) pairs of the SPEC 4.3 table whose header row starts with `heading`."""
    section = _spec_section()
    rows = section[section.index(f"| {heading}") :].split("\n\n", 1)[0].splitlines()[2:]
    pairs: set[tuple[str, str]] = set()
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        for release in re.findall(r"\d+\.\d+\.\d+", cells[0]):
            pairs.update((release, name) for name in re.findall(r"`([a-z][a-z0-9-]*)`", cells[-1]))
    return pairs


def observed_deviations(runs: dict[str, OracleRun]) -> dict[tuple[str, str], list[str]]:
    """(release, rule) -> examples, for every rule an emitted document breaks, under either profile."""
    seen: dict[tuple[str, str], list[str]] = defaultdict(list)
    for run in runs.values():
        for emitted in run.output["emitted"]:
            for way, text in emitted.get("texts", {}).items():
                for profile in PROFILES:
                    for rule in _error_rules(text, run.version, profile):
                        seen[(run.release, rule)].append(f"{emitted['id']} via {way} ({profile}): {text[-160:]}")
    return seen


def test_each_venv_runs_the_real_release_and_its_fields_are_the_contract_version(runs: dict[str, OracleRun]) -> None:
    for run in runs.values():
        output = run.output
        assert output["release"] == run.release and output["python"].startswith("3.13.")
        assert Path(output["model_file"]).is_relative_to(CACHE)
        own = set(output["fields"]) - {"responses_create_params", "response", "capture_rollout_id"}
        # The contract version of a release declares exactly the release's verify fields, plus the
        # legacy mask location (1.2.0), which Gym's agents write and its base model does not declare.
        assert own == declared_fields(run.version) - {"instance_config"}, run.release


def test_gym_registry_is_the_contract_registry(runs: dict[str, OracleRun]) -> None:
    gym_kinds = runs["0.7.0"].output["failure_kinds"]
    assert gym_kinds is not None and set(gym_kinds) <= registered_failure_kinds("1.2.0")
    assert runs["0.5.1"].output["failure_kinds"] is None and runs["0.6.0"].output["failure_kinds"] is None


def test_the_grid_reaches_every_release(runs: dict[str, OracleRun]) -> None:
    for run in runs.values():
        emitted = run.output["emitted"]
        built = [case for case in emitted if "texts" in case]
        # Gym refuses some values at construction (a null reward, a list); a third of the cases at least build.
        assert len(emitted) > 1000 and len(built) > len(emitted) // 3, (run.release, len(built), len(emitted))
        assert all(case.get("texts") or case.get("refusals") or case.get("refused") for case in emitted)


def test_every_emitted_document_is_valid_or_a_documented_deviation(runs: dict[str, OracleRun]) -> None:
    observed = observed_deviations(runs)
    documented = _spec_table("releases | what Gym writes")
    undocumented = {key: examples[:3] for key, examples in observed.items() if key not in documented}
    assert not undocumented, f"emitted documents break rules SPEC 4.3 does not list: {undocumented}"
    stale = documented - set(observed)
    assert not stale, f"SPEC 4.3 lists deviations the oracle no longer sees: {sorted(stale)}"


def test_each_deviation_has_vectors_at_its_contract_version(runs: dict[str, OracleRun]) -> None:
    vectors = load_vectors()
    for release, rule in sorted(observed_deviations(runs)):
        version = RELEASES[release]
        tagged = [
            vector
            for vector in vectors
            if DEVIATION_TAG in vector.tags and vector.contract_version == version and rule in vector.findings
        ]
        assert tagged, f"no vector tagged {DEVIATION_TAG!r} at {version} shows {rule!r} (nemo-gym {release})"
        assert all(not vector.valid for vector in tagged)


def _read_differences(run: OracleRun, read: dict[str, Any]) -> set[str]:
    """What Gym's model did to one valid contract document, as SPEC 4.3's second table names it."""
    if "refused" in read:
        # Gym validates the OpenAI shapes of the request echo and the response; the contract does not
        # describe them beyond `response.output` (SPEC 2.2). A refusal anywhere else is undocumented.
        return {
            "nested-openai-shape" if error["loc"][0] in ("response", "responses_create_params") else "refused"
            for error in read["refused"]
        }
    if read["dump"] is None:
        return {"unwritable"}
    found: set[str] = set()
    sent = json.loads(run.documents[read["id"]][0])
    kept = json.loads(read["dump"])
    dropped = set(sent) - set(kept)
    if dropped - {"instance_config"}:
        found.add("unknown-keys-dropped")
    if "instance_config" in dropped and isinstance(sent["instance_config"], dict):
        found.add("legacy-mask-dropped" if "mask_sample" in sent["instance_config"] else "unknown-keys-dropped")
    for name in declared_fields(run.version) & set(kept):
        want = sent.get(name, DEFAULTS.get(name))
        if json_equal(want, kept[name]):
            continue
        if name == "reward" and isinstance(want, int) and abs(want) > 2**53:
            found.add("integer-reward-rounded")
        else:
            found.add(f"changed-{name}")
    return found


def test_every_valid_contract_document_is_read_or_a_documented_difference(runs: dict[str, OracleRun]) -> None:
    observed: dict[tuple[str, str], list[str]] = defaultdict(list)
    for run in runs.values():
        assert len(run.output["read"]) == len(run.documents) > 0
        for read in run.output["read"]:
            if run.documents[read["id"]][1]:
                continue
            for way in ("model_validate", "model_validate_json"):
                for difference in _read_differences(run, {"id": read["id"], **read[way]}):
                    observed[(run.release, difference)].append(f"{read['id']} via {way}")
    documented = _spec_table("releases | reading a valid contract document")
    undocumented = {key: examples[:3] for key, examples in observed.items() if key not in documented}
    assert not undocumented, f"Gym's model treats valid documents in ways SPEC 4.3 does not list: {undocumented}"
    stale = documented - set(observed)
    assert not stale, f"SPEC 4.3 lists reading differences the oracle no longer sees: {sorted(stale)}"


def test_contract_invalid_documents_gym_accepts_are_documented(runs: dict[str, OracleRun]) -> None:
    """Gym's lax pydantic model reads some documents the contract rejects (SPEC 4.2: a consumer MUST NOT
    coerce). Each rule such a document breaks must be listed in SPEC 4.3's third table, and vice versa."""
    observed: dict[tuple[str, str], list[str]] = defaultdict(list)
    for run in runs.values():
        invalid = [read for read in run.output["read"] if run.documents[read["id"]][1]]
        assert invalid, run.release
        for read in invalid:
            for way in ("model_validate", "model_validate_json"):
                if "refused" not in read[way]:
                    for rule in run.documents[read["id"]][1]:
                        observed[(run.release, rule)].append(f"{read['id']} via {way}")
    documented = _spec_table("releases | accepts a document the contract rejects")
    undocumented = {key: examples[:3] for key, examples in observed.items() if key not in documented}
    assert not undocumented, f"Gym's model accepts invalid documents in ways SPEC 4.3 does not list: {undocumented}"
    stale = documented - set(observed)
    assert not stale, f"SPEC 4.3 lists accepted invalid documents the oracle no longer sees: {sorted(stale)}"
