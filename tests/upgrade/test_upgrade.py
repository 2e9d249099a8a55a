from __future__ import annotations

import pytest

from verify_contract import LATEST_VERSION, UpgradeError, effective_mask, parse_json, upgrade, validate

from conftest import VECTORS


def test_legacy_only_mask_is_lifted_and_mirror_kept() -> None:
    document = {"reward": 1.0, "resolved": True, "instance_config": {"mask_sample": True, "agent": "oh"}}
    result = upgrade(document)
    assert result.document == {**document, "mask_sample": True}
    assert list(result.document)[:3] == ["reward", "resolved", "instance_config"]
    assert result.changes and "legacy" in result.changes[0]
    assert document == {"reward": 1.0, "resolved": True, "instance_config": {"mask_sample": True, "agent": "oh"}}
    assert validate(result.document, profile="core").rules == []


def test_divergent_masks_become_their_or() -> None:
    result = upgrade({"reward": 0.0, "mask_sample": False, "instance_config": {"mask_sample": True}})
    assert result.document["mask_sample"] is True
    assert result.document["instance_config"] == {"mask_sample": True}
    assert len(result.changes) == 1


def test_current_document_is_unchanged() -> None:
    document = {"reward": 1, "mask_sample": False, "x": [1, 2]}
    result = upgrade(document)
    assert result.document == document and not result.changed
    assert type(result.document["reward"]) is int


def test_refuses_what_it_cannot_upgrade() -> None:
    with pytest.raises(UpgradeError, match="failure_reason"):
        upgrade({"reward": 0.0, "failure_reason": 7})
    with pytest.raises(UpgradeError, match="boolean"):
        upgrade({"reward": 0.0, "instance_config": {"mask_sample": "true"}})
    with pytest.raises(UpgradeError):
        upgrade([{"reward": 0.0}])  # type: ignore[arg-type]


OLDER_VALID = [v for v in VECTORS if v.valid and v.contract_version != LATEST_VERSION and v.has_instance]


@pytest.mark.parametrize("vector", OLDER_VALID, ids=[v.id for v in OLDER_VALID])
def test_older_vectors_upgrade_or_refuse_loudly(vector: object) -> None:
    document = parse_json(vector.text).document  # type: ignore[attr-defined]
    if "later-field-type-conflict" in vector.tags:  # type: ignore[attr-defined]
        with pytest.raises(UpgradeError):
            upgrade(document)
        return
    result = upgrade(document)
    assert validate(result.document, LATEST_VERSION, vector.profile).valid  # type: ignore[attr-defined]
    assert effective_mask(result.document) is vector.effective_mask  # type: ignore[attr-defined]
    assert "legacy-mask-only" not in validate(result.document, LATEST_VERSION, "core").rules


LIBRARY_ONLY = r"""
import json, sys
from verify_contract.upgrade import UpgradeError, upgrade_text

# A JSON Lines dump as a trainer's own tooling would rewrite it: every line through the library's rewrite.
lines = [
    b'{"reward": 1e2, "instance_config": {"mask_sample": true},  "z": "\\u00e9"}',
    b'{"reward": 0.50, "mask_sample": false}',
    b'{"reward": "1"}',
]
out, notes = [], []
for number, line in enumerate(lines, start=1):
    try:
        text, changes = upgrade_text(line, "core")
    except UpgradeError as refused:
        text, changes = line, [f"refused: {refused}"]
    out.append(text)
    notes.extend(f"{number}: {change}" for change in changes)
cli = sorted(name for name in sys.modules if name.startswith("verify_contract.cli"))
print(json.dumps({"out": [line.decode() for line in out], "notes": notes, "cli": cli}))
"""


def test_upgrade_text_rewrites_losslessly_without_the_command_line() -> None:
    """The format-preserving rewrite is the library's: a script upgrades JSON Lines with it, and no module of
    the command line is loaded (a fresh interpreter, so nothing this test process imported counts)."""
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", LIBRARY_ONLY], capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    assert result["cli"] == []
    assert result["out"] == [
        # the member added in the document's own style (its separator ",  "), every other byte as it was
        '{"reward": 1e2, "instance_config": {"mask_sample": true},  "z": "\\u00e9",  "mask_sample": true}',
        '{"reward": 0.50, "mask_sample": false}',
        '{"reward": "1"}',
    ]
    assert result["notes"][0] == "1: /mask_sample: added true from the legacy instance_config.mask_sample"
    assert result["notes"][1].startswith("3: refused: not valid at ") and "reward-type" in result["notes"][1]
    assert len(result["notes"]) == 2  # the current line: no change
