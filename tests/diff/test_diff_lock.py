"""schema/lock.json: released schema files are immutable, released failure kinds keep their meaning."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from verify_contract.diff.lock import (
    LOCK_RULE,
    check_lock,
    compute_lock,
    main,
    read_lock,
    render,
    updated_lock,
    version_dirs,
)
from verify_contract.findings import Severity

ROOT = Path(__file__).resolve().parents[2]


def test_lock_holds() -> None:
    assert check_lock(ROOT, read_lock(ROOT)) == []


def test_every_version_but_a_newest_draft_is_locked() -> None:
    locked = set(read_lock(ROOT)["versions"])
    drafts = [v for v in version_dirs(ROOT) if v not in locked]
    assert drafts in ([], version_dirs(ROOT)[-1:])
    assert {"1.0.0", "1.1.0", "1.2.0"} <= locked


def test_lock_covers_every_released_file() -> None:
    lock = read_lock(ROOT)
    for version, files in lock["versions"].items():
        on_disk = sorted(p.name for p in (ROOT / "schema/versions" / version).iterdir() if p.is_file())
        assert sorted(files) == on_disk


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "schema", tmp_path / "schema")
    return tmp_path


def _edit_registry(root: Path, edit: object) -> None:
    path = root / "schema/registry/failure_kinds.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    edit(data)  # type: ignore[operator]
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def _kind(data: dict[str, list[dict[str, str]]], kind_id: str) -> dict[str, str]:
    return next(k for k in data["kinds"] if k["id"] == kind_id)


def test_edited_released_file_is_caught(copy: Path) -> None:
    path = copy / "schema/versions/1.1.0/verify_response.schema.json"
    path.write_text(path.read_text(encoding="utf-8").replace("rollout", "episode"), encoding="utf-8")
    problems = check_lock(copy, read_lock(ROOT))
    assert len(problems) == 1 and "1.1.0/verify_response.schema.json: released file changed" in render(problems[0])
    found = problems[0]
    assert (found.rule, found.severity, found.file) == (
        LOCK_RULE,
        Severity.ERROR,
        "schema/versions/1.1.0/verify_response.schema.json",
    )


def test_file_added_to_released_version_is_caught(copy: Path) -> None:
    (copy / "schema/versions/1.0.0/failure_kinds.schema.json").write_text("{}", encoding="utf-8")
    assert any("file added to a released version" in p.message for p in check_lock(copy, read_lock(ROOT)))


def test_released_version_removed_is_caught(copy: Path) -> None:
    shutil.rmtree(copy / "schema/versions/1.1.0")
    problems = check_lock(copy, read_lock(ROOT))
    assert "released version 1.1.0 is missing" in [render(p) for p in problems]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda d: d["kinds"].remove(_kind(d, "kill_shaped")), "kill_shaped was removed"),
        (lambda d: _kind(d, "session_lost").update(domain="transport"), "session_lost: domain changed"),
        (lambda d: _kind(d, "cancelled").update(added_in="1.1.0"), "cancelled: added_in changed"),
        (lambda d: _kind(d, "transport_timeout").update(stability="development"), "transport_timeout was stable"),
    ],
    ids=["removed", "domain", "added_in", "stability"],
)
def test_registry_edits_to_released_kinds_are_caught(copy: Path, edit: object, expected: str) -> None:
    _edit_registry(copy, edit)
    assert any(expected in p.message for p in check_lock(copy, read_lock(ROOT)))


def test_registry_may_grow_and_deprecate(copy: Path) -> None:
    def grow(data: dict[str, list[dict[str, object]]]) -> None:
        data["kinds"].append(
            {
                "id": "sandbox_crashed",
                "domain": "provider",
                "brief": "x",
                "stability": "development",
                "added_in": "1.2.0",
            }
        )
        _kind(data, "kill_shaped")["deprecated"] = {"in": "1.2.0", "reason": "obsoleted"}  # type: ignore[arg-type]

    _edit_registry(copy, grow)
    # The registry file is not hashed; the kind only breaks the lock once it reaches a released enum file.
    assert check_lock(copy, read_lock(ROOT)) == []


def _next_minor(version: str) -> str:
    major, minor, _ = map(int, version.split("."))
    return f"{major}.{minor + 1}.0"


def test_new_version_is_locked_without_touching_released_entries(copy: Path) -> None:
    latest = version_dirs(copy)[-1]
    draft = _next_minor(latest)
    shutil.copytree(copy / "schema/versions" / latest, copy / "schema/versions" / draft)
    old = read_lock(ROOT)
    assert check_lock(copy, old) == []  # an unreleased newest version is a draft
    fresh = updated_lock(copy, old, [draft])
    assert list(fresh["versions"]) == [*old["versions"], draft]
    assert {v: fresh["versions"][v] for v in old["versions"]} == old["versions"]


def test_draft_older_than_a_release_is_caught(copy: Path) -> None:
    shutil.copytree(copy / "schema/versions/1.1.0", copy / "schema/versions/1.1.5")
    assert any("1.1.5 is older than released" in p.message for p in check_lock(copy, read_lock(ROOT)))


def test_updated_lock_refuses_a_broken_lock(copy: Path) -> None:
    (copy / "schema/versions/1.0.0/verify_response.schema.json").write_text("{}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="does not hold"):
        updated_lock(copy, read_lock(ROOT), [])


def test_lock_file_is_what_the_tool_writes(copy: Path) -> None:
    (copy / "schema/lock.json").unlink()
    released = list(read_lock(ROOT)["versions"])
    assert main([str(copy), "--write", *(arg for version in released for arg in ("--release", version))]) == 0
    written = json.loads((copy / "schema/lock.json").read_text(encoding="utf-8"))
    assert written == read_lock(ROOT) == compute_lock(ROOT, released)
    assert main([str(copy)]) == 0
