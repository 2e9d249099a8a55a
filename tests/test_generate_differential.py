"""The generated Python decoders agree with the reference validator beyond the vectors: seeded random
documents built from every field the model declares (each absent, or one of many JSON values of every
type, right and wrong) get the same verdict from each Python target as from `verify_contract.validate`,
for every shipped version and profile, and the effective mask of an accepted document matches the
reference's."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest
from python_targets import PYTHON_TARGETS, decoder, import_path, render_python_target

from verify_contract.contract._model import contract_model
from verify_contract.contract._versions import CONTRACT_VERSIONS
from verify_contract.reference._mask import MaskTypeError, effective_mask
from verify_contract.reference._validation import validate

DOCUMENTS_PER_COMBINATION = 400
# A valid document of each profile, which each random document starts from.
BASE: dict[str, dict[str, Any]] = {
    "core": {"reward": 0.5},
    "gym": {"reward": 0.5, "responses_create_params": {}, "response": {"output": []}},
}
VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 2.5, -0.0, 10**20, "", "x", "judge_failed", "myenv:crash", "Bad Kind", "a:b:c",
    "kill_shaped", [], [1, "a"], [{"type": "message"}], {}, {"mask_sample": True}, {"mask_sample": "yes"},
    {"mask_sample": None}, {"output": []}, {"output": {}},
]  # fmt: skip


def _documents(version: str, profile: str, seed: int) -> list[dict[str, Any]]:
    model = contract_model(version)
    top = [f for f in model.fields_of(profile) if f.parent == ""]
    nested = {f.parent: f for f in model.fields_of(profile) if f.parent}
    rng = random.Random(seed)
    documents = []
    for _ in range(DOCUMENTS_PER_COMBINATION):
        document: dict[str, Any] = copy.deepcopy(BASE[profile])
        for field in top:
            draw = rng.random()
            if draw < 0.1:
                document.pop(field.name, None)
            elif draw < 0.4:
                document[field.name] = copy.deepcopy(rng.choice(VALUES))
                child = nested.get(field.pointer)
                if child is not None and isinstance(document[field.name], dict) and rng.random() < 0.5:
                    document[field.name][child.name] = copy.deepcopy(rng.choice(VALUES))
        if rng.random() < 0.3:
            document["unknown_" + str(rng.randrange(3))] = copy.deepcopy(rng.choice(VALUES))
        documents.append(document)
    return documents


def _reference_mask(document: dict[str, Any]) -> bool | None:
    try:
        return effective_mask(document)
    except MaskTypeError:
        return None


@pytest.mark.parametrize("profile", ["core", "gym"])
@pytest.mark.parametrize("version", CONTRACT_VERSIONS)
def test_python_targets_agree_with_the_reference(version: str, profile: str, tmp_path: Path) -> None:
    modules = {t: import_path(render_python_target(t, version, profile, tmp_path)) for t in PYTHON_TARGETS}
    decoders = {target: decoder(module, target, profile) for target, module in modules.items()}
    disagreements: list[str] = []
    checked = {True: 0, False: 0}
    for document in _documents(version, profile, seed=hash((version, profile)) & 0xFFFF):
        expected = validate(document, version, profile).valid
        checked[expected] += 1
        for target, decode in decoders.items():
            try:
                decode(copy.deepcopy(document))
                accepted = True
            except Exception:  # each target raises its own error type
                accepted = False
            if accepted is not expected:
                disagreements.append(f"{target}: {'accepted' if accepted else 'refused'} {document!r}")
        if expected:
            mask = _reference_mask(document)
            try:
                got: bool | None = modules["python-typeddict"].effective_mask(document)
            except modules["python-typeddict"].ContractError:
                got = None
            if got is not mask:
                disagreements.append(f"effective_mask {got}, reference {mask}: {document!r}")
    assert checked[True] > 20 and checked[False] > 20, checked  # both verdicts are exercised
    assert disagreements[:10] == []
