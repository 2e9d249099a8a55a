"""One side of a diff: a contract version's schema files and registry, from a file, a directory or a git revision."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from verify_contract.contract import RegistryData, parse_registry, version_key
from verify_contract.vectors import SCHEMA_FILE as VECTORS_SCHEMA_FILE
from verify_contract.vectors import Vector, parse_vector_files

VERIFY_RESPONSE_FILE = "verify_response.schema.json"
FAILURE_KINDS_FILE = "failure_kinds.schema.json"
REGISTRY_NAME = "failure_kinds.yaml"
VERSIONS = PurePosixPath("schema/versions")
REGISTRY_PATH = PurePosixPath("schema/registry") / REGISTRY_NAME
SEMVER = re.compile(r"\d+\.\d+\.\d+")
ID_VERSION = re.compile(r"/(\d+\.\d+\.\d+)/")


class SideError(ValueError):
    """A side cannot be loaded: a usage or I/O error (exit code 2), never a traceback."""


@dataclass
class Side:
    label: str
    version: str | None
    documents: dict[str, Any]
    """File name -> parsed JSON: ``verify_response.schema.json`` and, when present, ``failure_kinds.schema.json``."""
    registry: RegistryData | None = None
    versions: list[str] = field(default_factory=list)
    """Every contract version the side's tree knows (the registry's ``added_in`` must be one of them)."""
    vectors_at: VectorsAt | None = None
    """The conformance vectors of the side's own tree (a repository's ``vectors/``), when it has them."""

    @property
    def schema(self) -> dict[str, Any]:
        document: dict[str, Any] = self.documents[VERIFY_RESPONSE_FILE]
        return document


class Tree(Protocol):
    """Read-only file access to a working tree or a git revision."""

    def read(self, path: PurePosixPath) -> str | None: ...

    def children(self, path: PurePosixPath) -> list[str]: ...


@dataclass(frozen=True)
class FsTree:
    root: Path

    def read(self, path: PurePosixPath) -> str | None:
        target = self.root / path
        try:
            return target.read_text(encoding="utf-8") if target.is_file() else None
        except (OSError, UnicodeDecodeError) as error:
            raise SideError(f"cannot read {target}: {error}") from error

    def children(self, path: PurePosixPath) -> list[str]:
        target = self.root / path
        return sorted(p.name for p in target.iterdir()) if target.is_dir() else []


@dataclass(frozen=True)
class GitTree:
    repo: Path
    commit: str

    def _git(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(["git", "-C", str(self.repo), *args], capture_output=True, check=False)

    def read(self, path: PurePosixPath) -> str | None:
        done = self._git("show", f"{self.commit}:{path}")
        if done.returncode != 0:
            return None
        try:
            return done.stdout.decode("utf-8")
        except UnicodeDecodeError as error:
            raise SideError(f"{self.commit}:{path} is not UTF-8") from error

    def children(self, path: PurePosixPath) -> list[str]:
        done = self._git("ls-tree", "--name-only", f"{self.commit}:{path}")
        return sorted(done.stdout.decode("utf-8").split()) if done.returncode == 0 else []


@dataclass(frozen=True)
class VectorsAt:
    """A side's ``vectors/`` directory, read only when the corpus effect is asked for."""

    tree: Tree
    directory: PurePosixPath
    label: str
    """How the report names it: ``main:vectors``, or the directory's path."""

    def load(self) -> list[Vector]:
        schema = _json(self.tree, self.directory / VECTORS_SCHEMA_FILE, self.label)
        names = [n for n in self.tree.children(self.directory) if n.endswith(".json") and n != VECTORS_SCHEMA_FILE]
        files = [(name, self.tree.read(self.directory / name) or "") for name in names]
        return parse_vector_files(schema, files)


def _vectors_at(tree: Tree, version_dir: PurePosixPath, label: str) -> VectorsAt | None:
    """``<root>/vectors`` of a version directory laid out as ``<root>/schema/versions/<version>``."""
    if version_dir.parent.name != "versions" or version_dir.parent.parent.name != "schema":
        return None
    directory = version_dir.parent.parent.parent / "vectors"
    if tree.read(directory / VECTORS_SCHEMA_FILE) is None:
        return None
    if isinstance(tree, GitTree):
        return VectorsAt(tree, directory, f"{label.partition(':')[0]}:{directory.as_posix()}")
    return VectorsAt(tree, directory, str(tree.root / directory) if isinstance(tree, FsTree) else str(directory))


def _json(tree: Tree, path: PurePosixPath, where: str) -> Any:
    text = tree.read(path)
    if text is None:
        raise SideError(f"{where}: {path} not found")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise SideError(f"{where}: {path} is not JSON: {error}") from error


def _versions_in(tree: Tree, versions_dir: PurePosixPath) -> list[str]:
    found = [
        name
        for name in tree.children(versions_dir)
        if SEMVER.fullmatch(name) and tree.read(versions_dir / name / VERIFY_RESPONSE_FILE) is not None
    ]
    return sorted(found, key=version_key)


def version_of(schema: Any, directory_name: str) -> str | None:
    """The directory's name when it is a version, else the version segment of ``$id``."""
    if SEMVER.fullmatch(directory_name):
        return directory_name
    schema_id = schema.get("$id") if isinstance(schema, dict) else None
    match = ID_VERSION.search(schema_id) if isinstance(schema_id, str) else None
    return match.group(1) if match else None


def _load_version_dir(tree: Tree, version_dir: PurePosixPath, label: str, main_file: str) -> Side:
    schema = _json(tree, version_dir / main_file, label)
    if not isinstance(schema, dict):
        raise SideError(f"{label}: {main_file} is not a JSON object")
    documents: dict[str, Any] = {VERIFY_RESPONSE_FILE: schema}
    if tree.read(version_dir / FAILURE_KINDS_FILE) is not None:
        documents[FAILURE_KINDS_FILE] = _json(tree, version_dir / FAILURE_KINDS_FILE, label)
    version = version_of(schema, version_dir.name)
    # A version dir inside a repository layout: siblings are the other versions, the registry sits beside.
    versions = _versions_in(tree, version_dir.parent) or ([version] if version else [])
    if version and version not in versions:
        versions = sorted([*versions, version], key=version_key)
    registry_text = tree.read(version_dir / REGISTRY_NAME)
    registry_where = version_dir / REGISTRY_NAME
    if registry_text is None:
        registry_where = version_dir.parent.parent / "registry" / REGISTRY_NAME
        registry_text = tree.read(registry_where)
    registry = None
    if registry_text is not None:
        registry = parse_registry(registry_text, versions, str(registry_where))
    return Side(label, version, documents, registry, versions, _vectors_at(tree, version_dir, label))


def _load_tree(tree: Tree, path: PurePosixPath, label: str) -> Side:
    """``path`` is a version dir, a ``schema/`` dir, a repository root, or a schema file."""
    if path.name.endswith(".json") and tree.read(path) is not None:
        return _load_version_dir(tree, path.parent, label, path.name)
    if tree.read(path / VERIFY_RESPONSE_FILE) is not None:
        return _load_version_dir(tree, path, label, VERIFY_RESPONSE_FILE)
    for versions_dir in (path / "versions", path / VERSIONS):
        versions = _versions_in(tree, versions_dir)
        if versions:
            return _load_version_dir(tree, versions_dir / versions[-1], label, VERIFY_RESPONSE_FILE)
    raise SideError(f"{label}: no {VERIFY_RESPONSE_FILE} here, nor a schema/versions/<version>/ directory")


def git_toplevel(start: Path) -> Path | None:
    done = subprocess.run(
        ["git", "-C", str(start), "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=False
    )
    return Path(done.stdout.strip()) if done.returncode == 0 else None


def _resolve_commit(repo: Path, revision: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() if done.returncode == 0 else None


def load_side(spec: str, repo: Path | None = None) -> Side:
    """Load ``spec``: an existing file or directory, else a git revision (``REV`` or ``REV:path``) of ``repo``.

    ``repo`` defaults to the git repository around the current directory.
    """
    local = Path(spec)
    if local.exists():
        # Rooted at the file system's anchor so a version dir can find its siblings and the registry beside them.
        absolute = local.resolve()
        anchor = Path(absolute.anchor)
        return _load_tree(FsTree(anchor), PurePosixPath(absolute.relative_to(anchor).as_posix()), spec)
    revision, _, inner = spec.partition(":")
    repository = repo or git_toplevel(Path.cwd())
    if repository is None or not revision:
        raise SideError(f"{spec!r} is neither a file, a directory nor a git revision (not inside a git repository)")
    commit = _resolve_commit(repository, revision)
    if commit is None:
        raise SideError(f"{spec!r} is neither a file, a directory nor a git revision of {repository}")
    return _load_tree(GitTree(repository, commit), PurePosixPath(inner or "."), spec)
