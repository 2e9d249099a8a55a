"""The generated Python decoders agree with the reference validator beyond the vectors: seeded random
documents built from every field the model declares (each absent, or one of many JSON values of every
type, right and wrong) get the same verdict from each Python target as from `verify_contract.validate`,
for every shipped version and profile, and the effective mask of an accepted document matches the
reference's. The same documents as JSON text, and texts that break SPEC 2.1 (a repeated member name, NaN,
deep nesting...), get the reference's verdict from each target's reader from text and from the package's
``from_json``, and what an accepted text encodes back keeps every number's value (SPEC 3.1's one rule).

The seed of each version and profile is stable across processes (``zlib.crc32``, not ``hash``) and named
in every failure, so a failure replays."""

from __future__ import annotations

import copy
import json
import random
import zlib
from pathlib import Path
from typing import Any

import pytest
from python_targets import PYTHON_TARGETS, decoder, import_path, render_python_target, text_reader

from verify_contract import MaskTypeError, effective_mask
from verify_contract.bindings import model_class
from verify_contract.contract._model import contract_model
from verify_contract.contract._versions import CONTRACT_VERSIONS
from verify_contract.reference._jsonio import parse_json
from verify_contract.reference._validation import validate

from big_numbers import same_value

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


def _seed(version: str, profile: str) -> int:
    """The same in every process (``hash`` of a str is salted per process)."""
    return zlib.crc32(f"{version}/{profile}".encode())


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
    seed = _seed(version, profile)
    for document in _documents(version, profile, seed):
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
    assert checked[True] > 20 and checked[False] > 20, (seed, checked)  # both verdicts are exercised
    assert disagreements[:10] == [], f"seed {seed}"


# Members that break one rule of SPEC 2.1, put first into a document that is otherwise what it was (with what
# follows the document), and spellings of numbers one JSON library keeps and another rewrites.
TEXT_DEFECTS: dict[str, tuple[str, str]] = {
    "repeated-name": ('"x_twice": 1, "x_twice": 2', ""),
    "repeated-name-deep": ('"x_deep": {"a": [{"b": 1, "b": 1}]}', ""),
    "repeated-escaped-name": ('"x_a": 1, "x_\\u0061": 1', ""),
    "nan-token": ('"x_nan": NaN', ""),
    "overflow": ('"x_big": 1e400', ""),
    "overflow-integer": ('"x_big": ' + "9" * 400, ""),
    "lone-surrogate": ('"x_text": "\\ud800"', ""),
    "too-deep": ('"x_deep": ' + "[" * 100 + "]" * 100, ""),
    "deep-enough": ('"x_deep": ' + "[" * 99 + "]" * 99, ""),
    "spellings": ('"x_one": 1.0, "x_zero": -0.0, "x_e": 1E2, "x_int_zero": -0, "x_double": 1.7037181445619378e+20', ""),
    "trailing": ("", " x"),
}


def _texts(version: str, profile: str, seed: int) -> list[bytes]:
    """Each random document as JSON text, and again with one TEXT_DEFECTS entry spliced in, and two
    byte-level defects (a byte order mark, invalid UTF-8)."""
    texts = []
    for index, document in enumerate(_documents(version, profile, seed)):
        text = json.dumps(document)
        members, after = list(TEXT_DEFECTS.values())[index % len(TEXT_DEFECTS)]
        spliced = "{" + ", ".join(part for part in (members, text[1:-1]) if part) + "}" + after
        texts += [text.encode(), spliced.encode()]
    texts += [b"\xef\xbb\xbf" + texts[0], texts[0].replace(b"{", b'{"x": "\xff", ', 1)]
    return texts


def _reference_verdict(text: bytes, version: str, profile: str) -> Any:
    """The reference's document for a text it accepts, else None."""
    parsed = parse_json(text)
    if parsed.finding is not None or not validate(parsed.document, version, profile).valid:
        return None
    return parsed.document


@pytest.mark.parametrize("profile", ["core", "gym"])
@pytest.mark.parametrize("version", CONTRACT_VERSIONS)
def test_readers_from_text_agree_with_the_reference(version: str, profile: str, tmp_path: Path) -> None:
    modules = {t: import_path(render_python_target(t, version, profile, tmp_path)) for t in PYTHON_TARGETS}
    readers = {target: text_reader(module, target, profile) for target, module in modules.items()}
    readers["package from_json"] = model_class(version, profile).from_json  # type: ignore[arg-type]
    encoders = {
        "python-typeddict": lambda value: value,
        "python-dataclass": lambda value: value.to_dict(),
        "python-pydantic": lambda value: value.to_document(),
        "package from_json": lambda value: value.to_document(),
    }
    seed = _seed(version, profile)
    disagreements: list[str] = []
    checked = {True: 0, False: 0}
    for text in _texts(version, profile, seed):
        expected = _reference_verdict(text, version, profile)
        checked[expected is not None] += 1
        for name, read in readers.items():
            try:
                decoded = read(text)
            except ValueError:  # ContractError and pydantic.ValidationError both are
                if expected is not None:
                    disagreements.append(f"{name}: refused {text[:200]!r}")
                continue
            if expected is None:
                disagreements.append(f"{name}: accepted {text[:200]!r}")
            elif not same_value(expected, json.loads(json.dumps(encoders[name](decoded)))):
                disagreements.append(f"{name}: the round trip changed a value of {text[:200]!r}")
    assert checked[True] > 30 and checked[False] > 200, (seed, checked)
    assert disagreements[:10] == [], f"seed {seed}"


def test_the_one_number_rule() -> None:
    """SPEC 3.1, as every round trip is judged: the value as a real number, never the spelling; integers exact."""
    same = [(1.0, 1), (1, 1.0), (-0.0, 0), (0, -0.0), (1e16, 10**16), (10**20, 1e20), ([1.50, -0.0], [1.5, 0])]
    different = [
        (2**53 + 1, float(2**53)),  # 9007199254740993 written back as 9007199254740993.0
        (2**53 + 1, 2**53),
        (1.7037181445619378e20, 170371814456193780000),  # a double padded with zeros: another integer
        (123456789012345678901234567890, 1.2345678901234568e29),
        (1, True),
        (0, False),
        ({"x": 0.1}, {"x": 0.1000000000000001}),
    ]
    assert all(same_value(a, b) for a, b in same)
    assert not any(same_value(a, b) or same_value(b, a) for a, b in different)
