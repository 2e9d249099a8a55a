"""``verify-contract upgrade``: lossless rewrites of JSON and JSONL files to the latest contract version.

"Number values kept" means the number's text: ``1e2`` is not rewritten as ``100.0``, ``1.10`` keeps its
zero, a 30-digit integer keeps its digits, ``-0.0`` keeps its sign. Everything but the change is
byte-identical: key order, unknown keys, whitespace, escapes.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from verify_contract import LATEST_VERSION, parse_json, upgrade, validate
from verify_contract.upgrade import UpgradeError, upgrade_text

from conftest import VECTORS

LEGACY = (
    b'{"reward": 1e2, "x": 1.10, "big": 123456789012345678901234567890, "neg": -0.0, "e": 1E+2, '
    b'"instance_config": {"mask_sample": true, "k": 0.1e-3}, "z": "\\u00e9\\n", "unknown": {"b": 1, "a": 2}}'
)


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "verify_contract", "upgrade", "--profile", "core", *args],
        input=stdin,
        capture_output=True,
        check=False,
    )


def test_adds_the_mask_and_keeps_every_other_byte() -> None:
    upgraded, changes = upgrade_text(LEGACY, "core")
    assert upgraded == LEGACY[:-1] + b', "mask_sample": true}'
    assert changes == ["/mask_sample: added true from the legacy instance_config.mask_sample"]
    assert validate(parse_json(upgraded).document, LATEST_VERSION, "core").findings == []


def test_compact_and_pretty_styles_are_followed() -> None:
    compact, _ = upgrade_text(b'{"reward":1,"instance_config":{"mask_sample":false}}', "core")
    assert compact == b'{"reward":1,"instance_config":{"mask_sample":false},"mask_sample":false}'
    pretty = b'{\n  "reward": 1.50,\n  "instance_config": {\n    "mask_sample": true\n  }\n}\n'
    out, _ = upgrade_text(pretty, "core")
    assert (
        out
        == b'{\n  "reward": 1.50,\n  "instance_config": {\n    "mask_sample": true\n  },\n  "mask_sample": true\n}\n'
    )


def test_divergent_mask_becomes_the_or_in_place() -> None:
    out, changes = upgrade_text(
        b'{"mask_sample": false, "reward": 0, "instance_config": {"mask_sample": true}}', "core"
    )
    assert out == b'{"mask_sample": true, "reward": 0, "instance_config": {"mask_sample": true}}'
    assert "the OR" in changes[0]


def test_current_documents_are_untouched() -> None:
    text = b'{"reward": 1.000, "mask_sample": true, "instance_config": {"mask_sample": true}}'
    assert upgrade_text(text, "core") == (text, [])


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (b'{"reward": "1"}', "reward-type"),
        (b'{"reward": 1, "failure_reason": 7}', "failure-reason-type"),
        (b'{"reward": 1, "reward": 2}', "json-duplicate-key"),
        (b'{"reward": NaN}', "json-non-finite"),
        (b'{"reward": 1, "instance_config": {"mask_sample": "yes"}}', "not a boolean"),
        (b"[1]", "a verify response is a JSON object"),
    ],
)
def test_refusals_say_why(text: bytes, reason: str) -> None:
    with pytest.raises(UpgradeError, match=reason):
        upgrade_text(text, "core")


@pytest.mark.parametrize("vector", [v for v in VECTORS if v.has_instance], ids=lambda v: v.id)
def test_same_document_as_the_library(vector: object) -> None:
    text = vector.text.encode()  # type: ignore[attr-defined]
    document = parse_json(text).document
    try:
        expected = upgrade(document, vector.profile)  # type: ignore[attr-defined]
    except UpgradeError:
        with pytest.raises(UpgradeError):
            upgrade_text(text, vector.profile)  # type: ignore[attr-defined]
        return
    out, changes = upgrade_text(text, vector.profile)  # type: ignore[attr-defined]
    assert json.loads(out) == expected.document and list(json.loads(out)) == list(expected.document)
    assert changes == expected.changes


def test_jsonl_file_refusals_reported_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "rollouts.jsonl"
    lines = [
        LEGACY,
        b"",
        b'{"reward": "bad"}',
        b'{"reward": 2}\r',
        b'{"reward":1,"instance_config":{"mask_sample":false}}',
    ]
    path.write_bytes(b"\n".join(lines))  # the last line has no newline
    result = run(str(path))
    assert result.returncode == 1
    out = result.stdout.split(b"\n")
    assert out[0].endswith(b', "mask_sample": true}') and out[1:4] == lines[1:4]
    assert out[4] == b'{"reward":1,"instance_config":{"mask_sample":false},"mask_sample":false}'
    err = result.stderr.decode()
    assert f"{path}:3: refused, left unchanged" in err and "reward-type" in err
    assert f"{path}:1: /mask_sample: added true" in err
    assert "4 documents, 2 upgraded, 1 already current, 1 refused" in err


def test_in_place_check_output_and_gzip(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl.gz"
    path.write_bytes(gzip.compress(LEGACY + b"\n"))
    assert run(str(path), "--check").returncode == 1
    assert run(str(path), "--in-place").returncode == 0
    assert gzip.decompress(path.read_bytes()).endswith(b'"mask_sample": true}\n')
    assert run(str(path), "--check").returncode == 0
    target = tmp_path / "out.json"
    single = tmp_path / "one.json"
    single.write_bytes(b'{"reward": 1, "instance_config": {"mask_sample": true}}')
    assert run(str(single), "-o", str(target)).returncode == 0
    assert json.loads(target.read_bytes())["mask_sample"] is True
    assert run(str(path), str(single)).returncode == 2  # two inputs, one stdout
    assert run("-", stdin=LEGACY).stdout.endswith(b'"mask_sample": true}')
