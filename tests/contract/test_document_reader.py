"""One reader of a document: the effective mask's rule and places are stated in ``contract/_document.py`` alone.

Copies of the package, one with that rule unchanged and one per change of it (the OR of the two places made an
AND; the legacy place forgotten), each without its compiled pre-check, and every path that reads a mask asked
about the same three documents in a fresh interpreter (tests/document_readers.py): ``check`` (its pure-Python
path), the failure budget, the probe's checks, ``upgrade``, the ASGI middleware (through its budget) and the
trainers' reader. Each must answer what the changed rule says: a path that kept a copy of the rule, or of the
places it reads, answers as before and is named here."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import verify_contract
from verify_contract.budget import ABSENT_GROUP, FailureBudget
from verify_contract.conformance.consumer import profile_echo
from verify_contract.contract import (
    ABSENT,
    MASK_ROLES,
    MESSAGE_CAP,
    MaskTypeError,
    cap,
    contract_model,
    effective_mask,
    json_pointer,
    mask_paths,
    pointer_path,
    value_at,
    version_key,
)
from verify_contract.contract._versions import LATEST_VERSION
from verify_contract.probe._checks import wire_profile

PACKAGE = Path(verify_contract.__file__).parent
READERS = Path(__file__).parents[1] / "document_readers.py"
PROFILE = wire_profile(LATEST_VERSION)
TOP, LEGACY = (mask_paths()[role] for role in MASK_ROLES)

# Each rule: what is replaced in contract/_document.py (it must stand there once), by what; the three documents'
# effective masks then; whether upgrade mirrors the legacy mask to the top level.
RULES: dict[str, tuple[str, str, list[bool], bool]] = {
    "unchanged": ("", "", [True, True, False], True),
    "and-instead-of-or": ("masked = masked or value", "masked = masked and value", [False, False, False], True),
    "legacy-place-forgotten": (
        "return {role: found[role] for role in MASK_ROLES if role in found}",
        "return {role: found[role] for role in MASK_ROLES[:1] if role in found}",
        [True, False, False],
        False,  # the legacy place is no mask place any more: nothing to mirror
    ),
}


def _at(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    document: Any = value
    for part in reversed(path):
        document = {part: document}
    return dict(document)


def documents() -> list[dict[str, Any]]:
    """Masked at the top level; masked only at the legacy place (valid, with a warning); not masked."""
    reward = contract_model(LATEST_VERSION).role("reward")
    assert reward is not None
    base = {**profile_echo(LATEST_VERSION, PROFILE), **_at(reward.path, 0.5)}
    return [{**base, **_at(TOP, True)}, {**base, **_at(LEGACY, True)}, {**base, **_at(TOP, False)}]


def start(package_root: Path) -> subprocess.Popen[str]:
    """The readers asked in a fresh interpreter that imports the package at ``package_root``."""
    env = {**os.environ, "PYTHONPATH": str(package_root), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, str(READERS), json.dumps(documents()), PROFILE]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Each rule's answers, path -> answer; the interpreters run at once (each takes a second to import)."""
    runs = {
        name: start(package_copy(tmp_path_factory.mktemp(name), old, new)) for name, (old, new, *_) in RULES.items()
    }
    found = {}
    for name, run in runs.items():
        stdout, stderr = run.communicate(timeout=120)
        assert run.returncode == 0, f"{name}: {stderr}"
        found[name] = json.loads(stdout)
    return found


def package_copy(root: Path, old: str, new: str) -> Path:
    """The package copied under ``root`` without its compiled pre-check, ``old`` replaced by ``new`` in the reader."""
    shutil.copytree(PACKAGE, root / PACKAGE.name, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    if old:
        reader = root / PACKAGE.name / "contract" / "_document.py"
        text = reader.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"the mutation's text is not in {reader.name} once: {old!r}"
        reader.write_text(text.replace(old, new), encoding="utf-8")
    return root


def expected(masks: list[bool], mirrored: bool) -> dict[str, Any]:
    """What each path answers when the reader gives these masks: ``check``, the budget, the probe and the trainers
    read them as they are; the middleware's budget counts the legacy-only reply (the second) as failed, since it
    breaks SPEC 4.1.5 for the probe; ``upgrade`` writes the legacy-only document's mask at the top level."""
    legacy_only = copy.deepcopy(documents()[1])
    if mirrored:
        legacy_only.update(_at(TOP, masks[1]))
    return {
        "check": sum(masks),
        "budget": sum(masks),
        "probe": masks,
        "upgrade": [documents()[0], legacy_only, documents()[2]],
        "middleware": masks[0] + masks[2],
        "trainers": masks,
    }


@pytest.mark.parametrize("name", list(RULES))
def test_the_rule_of_the_reader_is_every_paths_rule(name: str, answers: dict[str, dict[str, Any]]) -> None:
    """A path that reads the mask with a copy of the rule, or of its places, answers as before the change."""
    _, _, masks, mirrored = RULES[name]
    found = answers[name]
    want = expected(masks, mirrored)
    assert found.keys() == want.keys()
    astray = {path: found[path] for path in want if found[path] != want[path]}
    assert not astray, f"{name}: these paths do not read the mask by contract/_document.py's rule: {astray}"


# -- the other readings, each stated once in contract/_document.py ---------------------------------------------


@pytest.mark.parametrize(
    ("path", "pointer"),
    [((), ""), (("a",), "/a"), (("a/b", "c~d"), "/a~1b/c~0d"), (("~1",), "/~01"), (("",), "/"), (("", ""), "//")],
)
def test_a_json_pointer_is_written_and_read_back(path: tuple[str, ...], pointer: str) -> None:
    assert json_pointer(path) == pointer and pointer_path(pointer) == path
    with pytest.raises(ValueError, match="not a JSON Pointer"):
        pointer_path("a" + pointer)


def test_absent_is_not_null() -> None:
    document = {"a": {"b": None, "c": [1]}, "d": "x"}
    assert value_at(document, ("a", "b")) is None
    assert value_at(document, ()) is document and value_at(document, ("a", "c")) == [1]
    for path in [("z",), ("a", "z"), ("d", "b"), ("a", "c", "0"), ("a", "b", "c")]:
        assert value_at(document, path) is ABSENT, path
    assert not ABSENT and repr(ABSENT) == "ABSENT"
    assert value_at(MappingProxyType({"k": 1}), ("k",)) == 1  # any Mapping is an object


def test_versions_are_ordered_by_release_not_by_text() -> None:
    assert sorted(["1.10.0", "1.9.0", "1.2.0", "2.0.0"], key=version_key) == ["1.2.0", "1.9.0", "1.10.0", "2.0.0"]


def test_a_long_message_is_cut_at_the_cap_and_says_how_much_was_left_out() -> None:
    assert cap("x" * MESSAGE_CAP) == "x" * MESSAGE_CAP
    assert cap("x" * (MESSAGE_CAP + 1234)) == "x" * MESSAGE_CAP + "... (1,234 more characters)"
    assert cap("abcdef", 2) == "ab... (4 more characters)"


def test_a_document_that_is_no_object_has_no_mask() -> None:
    for document in ([], None, 1.0, "x"):
        with pytest.raises(MaskTypeError, match="a verify response is a JSON object"):
            effective_mask(document)  # type: ignore[arg-type]


def test_the_budget_groups_an_absent_member_as_its_own_group() -> None:
    """SPEC 11.2: a missing member or a container on the way that is not an object is ``(absent)`` (and so is
    null); the budget reads the group path with ``value_at``."""
    budget = FailureBudget(group_by=["env.name"])
    rows = [{"env": {"name": "a"}}, {"env": None}, {"env": {"name": None}}, {}, {"env": "s"}, {"env": {"name": {}}}]
    for row in rows:
        budget.observe(row)
    groups = {group["group"]["env.name"]: group["rollouts"] for group in budget.summary()["groups"]}
    assert groups == {ABSENT_GROUP: 4, "(object)": 1, "a": 1}
