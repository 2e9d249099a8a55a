"""schema/lock.json: released contract files are immutable, released failure kinds keep their meaning.

The lock records the SHA-256 of every file of every released version directory (including the generated
``failure_kinds.schema.json``, so a kind cannot be slipped into a released version) and, for every released
kind, what may never change (``domain``, ``added_in``) plus whether it is stable (which it then stays).
The registry file itself keeps growing, so it is not hashed: new kinds and deprecations are allowed.

``python -m verify_contract.diff.lock [--write] [ROOT]`` checks the lock (exit 1 with the problems) or
records newly released versions; ``--write`` never rewrites what is already locked.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path, PurePosixPath
from typing import Any

from verify_contract.contract import parse_registry, version_key
from verify_contract.diff.sides import REGISTRY_PATH, SEMVER, VERSIONS
from verify_contract.findings import Finding, Severity

LOCK_FILE = PurePosixPath("schema/lock.json")
LOCK_FORMAT = "verify-contract-lock/1"
LOCK_RULE = "release-lock"
"""The rule id of every ``Finding`` of ``check_lock``: something released changed or went missing."""


def _sha256(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def version_dirs(root: Path) -> list[str]:
    directory = root / VERSIONS
    found = (
        [d.name for d in directory.iterdir() if d.is_dir() and SEMVER.fullmatch(d.name)] if directory.is_dir() else []
    )
    return sorted(found, key=version_key)


def file_hashes(root: Path, version: str) -> dict[str, str]:
    directory = root / VERSIONS / version
    return {p.name: _sha256(p) for p in sorted(directory.iterdir()) if p.is_file()}


def _released_kinds(root: Path, versions: list[str]) -> dict[str, dict[str, Any]]:
    text = (root / REGISTRY_PATH).read_text(encoding="utf-8")
    registry = parse_registry(text, version_dirs(root))
    latest = versions[-1] if versions else None
    return {
        kind.id: {"domain": kind.domain, "added_in": kind.added_in, "stable": kind.stability == "stable"}
        for kind in registry.kinds
        if latest is not None and kind.known_at(latest)
    }


def compute_lock(root: Path, versions: list[str]) -> dict[str, Any]:
    """The lock of ``versions`` (the released ones) as they are on disk now."""
    return {
        "format": LOCK_FORMAT,
        "versions": {version: file_hashes(root, version) for version in versions},
        "kinds": _released_kinds(root, versions),
    }


def read_lock(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / LOCK_FILE).read_text(encoding="utf-8"))
    if data.get("format") != LOCK_FORMAT:
        raise ValueError(f"{LOCK_FILE}: format must be {LOCK_FORMAT}")
    return data


def _broken(message: str, file: PurePosixPath | str = "") -> Finding:
    return Finding(LOCK_RULE, Severity.ERROR, message, "", str(file))


def render(found: Finding) -> str:
    """A lock finding as one line: ``file: message``, or the message alone for a whole version."""
    return f"{found.file}: {found.message}" if found.file else found.message


def check_lock(root: Path, lock: dict[str, Any]) -> list[Finding]:
    """Every way the tree differs from what was released (rule ``release-lock``); empty when the lock holds."""
    problems: list[Finding] = []
    locked_versions: dict[str, dict[str, str]] = lock["versions"]
    on_disk = version_dirs(root)
    for version, files in locked_versions.items():
        if version not in on_disk:
            problems.append(_broken(f"released version {version} is missing"))
            continue
        actual = file_hashes(root, version)
        for name, digest in files.items():
            if name not in actual:
                problems.append(_broken("released file is missing", VERSIONS / version / name))
            elif actual[name] != digest:
                problems.append(
                    _broken(f"released file changed ({actual[name]} != {digest})", VERSIONS / version / name)
                )
        for name in sorted(set(actual) - set(files)):
            problems.append(_broken("file added to a released version", VERSIONS / version / name))
    newest_locked = max(locked_versions, key=version_key, default=None)
    for version in on_disk:
        if version not in locked_versions and newest_locked and version_key(version) < version_key(newest_locked):
            problems.append(_broken(f"{VERSIONS}/{version} is older than released {newest_locked} but is not locked"))
    current = _released_kinds(root, on_disk)
    for kind_id, locked in lock["kinds"].items():
        now = current.get(kind_id)
        if now is None:
            problems.append(_broken(f"released failure kind {kind_id} was removed (deprecate it instead)"))
            continue
        for key in ("domain", "added_in"):
            if now[key] != locked[key]:
                problems.append(
                    _broken(f"released failure kind {kind_id}: {key} changed from {locked[key]} to {now[key]}")
                )
        if locked["stable"] and not now["stable"]:
            problems.append(_broken(f"released failure kind {kind_id} was stable and is no longer"))
    return problems


def updated_lock(root: Path, lock: dict[str, Any] | None, release: list[str]) -> dict[str, Any]:
    """``lock`` plus the versions in ``release``; refuses (ValueError) if what is already locked no longer holds."""
    if lock is not None:
        problems = check_lock(root, lock)
        if problems:
            raise ValueError("the lock does not hold; fix these first:\n" + "\n".join(map(render, problems)))
    versions = sorted({*(lock["versions"] if lock else {}), *release}, key=version_key)
    fresh = compute_lock(root, versions)
    if lock is not None:
        for kind_id, locked in lock["kinds"].items():  # stability only ever goes up
            fresh["kinds"][kind_id]["stable"] = fresh["kinds"][kind_id]["stable"] or locked["stable"]
    return fresh


def dump_lock(lock: dict[str, Any]) -> str:
    return json.dumps(lock, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verify_contract.diff.lock", description=__doc__.split("\n")[0])
    parser.add_argument("root", nargs="?", default=".", help="repository root (default: current directory)")
    parser.add_argument("--write", action="store_true", help="lock the versions named by --release")
    parser.add_argument("--release", action="append", default=[], metavar="VERSION", help="a version to lock")
    args = parser.parse_args(argv)
    root = Path(args.root)
    lock = read_lock(root) if (root / LOCK_FILE).is_file() else None
    if args.write:
        try:
            fresh = updated_lock(root, lock, args.release)
        except ValueError as error:
            print(error, file=sys.stderr)
            return 1
        (root / LOCK_FILE).write_text(dump_lock(fresh), encoding="utf-8")
        print(f"locked versions {', '.join(fresh['versions'])} and {len(fresh['kinds'])} failure kinds")
        return 0
    if lock is None:
        print(f"no {LOCK_FILE}", file=sys.stderr)
        return 2
    problems = check_lock(root, lock)
    for problem in problems:
        print(render(problem), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
