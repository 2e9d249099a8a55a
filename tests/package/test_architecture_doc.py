"""docs/architecture.md describes the tree as it is: every module, file and dotted name it puts in code exists.

A maintainer reads the architecture map before the code; a name in it that was renamed or deleted sends them
looking for what is not there. The map names things three ways, each checked here:
- paths (``check/_fastpath.py``, ``generators/render.py``, ``cli/_remote``): a file or folder of the repository,
  of the package, or (a bare module name such as ``_lines``) of one of its sub-packages;
- dotted names (``verify_contract.contract.contract_model``, ``_fastpath.field_table``, ``reference._jsonio``):
  the module is imported and each further part looked up on it;
- the tree drawings (fenced blocks): every ``name.py``/``name.c``/``name/`` they draw, and each line's leading
  module of the budget drawing.
"""

from __future__ import annotations

import importlib
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

import verify_contract

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
PACKAGE = Path(verify_contract.__file__).resolve().parent
SUBPACKAGES = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_FENCE = re.compile(r"^```\w*\n(.*?)^```", re.MULTILINE | re.DOTALL)
_PATH_LIKE = re.compile(r"^[\w.\-/]+$")
_FILE_SUFFIXES = (".py", ".pyi", ".c", ".md", ".json", ".yaml", ".j2", ".sh", ".toml", ".txt")
_DRAWN_FILE = re.compile(r"(?<![\w/.])((?:[\w-]+/)*[\w-]+\.(?:py|pyi|c))\b")
_DRAWN_FOLDER = re.compile(r"(?<![\w/.<>])([A-Za-z_][\w-]*/)(?![\w<])")
_MODULE_NAME = re.compile(r"^[A-Za-z_]\w*$")


def _tracked() -> tuple[set[str], set[str]]:
    """The repository's tracked files and the folders that hold them, as paths from the root."""
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    files = set(listed.split())
    folders = {str(Path(f).parents[i]) for f in files for i in range(len(Path(f).parents) - 1)}
    return files, folders


FILES, FOLDERS = _tracked()


def _path_exists(name: str) -> bool:
    """A tracked file or folder whose path is, or ends with, the name (``check/_fastpath.py``, ``go/root``,
    ``contract.yaml``); a module named without its suffix (``cli/_remote``, ``_lines``) as its ``.py``."""
    name = name.rstrip("/")
    for candidate, known in ((name, FILES), (f"{name}.py", FILES), (name, FOLDERS)):
        if candidate in known or any(path.endswith("/" + candidate) for path in known):
            return True
    return False


def _module(dotted: str) -> object | None:
    for prefix in ("verify_contract.", *(f"verify_contract.{sub}." for sub in SUBPACKAGES), ""):
        try:
            return importlib.import_module(prefix + dotted)
        except ImportError:
            continue
    return None


def _dotted_exists(dotted: str) -> bool:
    """The longest importable module prefix, then each remaining part as an attribute of the last."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        found = _module(".".join(parts[:cut]))
        if found is None:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def _is_module_reference(dotted: str) -> bool:
    """A dotted name whose first part is the package or one of its modules (not a class or a local name)."""
    first = dotted.split(".")[0]
    if first == "verify_contract":
        return True
    return _module(first) is not None and first not in {"json", "re", "os", "sys"}


def _named_in_prose(text: str) -> Iterator[tuple[str, str]]:
    prose = _FENCE.sub("", text)
    for span in _CODE_SPAN.findall(prose):
        token = span.strip().split("(")[0].rstrip(":,")
        if (
            not token
            or token.startswith("/")
            or "<" in token
            or " " in token
            or not _PATH_LIKE.match(token)
            or token.startswith("-")
        ):
            continue
        if "/" in token or token.endswith(_FILE_SUFFIXES):
            if token.startswith(("s3:", "gs:", "http")) or token.endswith("://"):
                continue
            yield "path", token
        elif (
            all(_MODULE_NAME.match(part) for part in token.split(".")) and "." in token and _is_module_reference(token)
        ):
            yield "dotted", token


def _drawn(text: str) -> Iterator[tuple[str, str]]:
    for block in _FENCE.findall(text):
        if "verify_contract/" in block.splitlines()[0] or "budget " in block.splitlines()[0]:
            for line in block.splitlines():
                for name in _DRAWN_FILE.findall(line):
                    yield "path", name
                for folder in _DRAWN_FOLDER.findall(line):
                    yield "path", folder
        if block.startswith("budget "):  # the budget drawing: each line leads with a module
            for line in block.splitlines():
                if line and not line[0].isspace():
                    yield "path", line.split()[0]


def _references() -> list[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    return sorted(set(_named_in_prose(text)) | set(_drawn(text)))


def _missing(references: list[tuple[str, str]]) -> list[str]:
    return [name for kind, name in references if not (_path_exists(name) if kind == "path" else _dotted_exists(name))]


def test_the_map_names_only_what_exists() -> None:
    references = _references()
    assert len(references) > 60, references  # the map names the tree; a parser that finds nothing proves nothing
    assert _missing(references) == []


@pytest.mark.parametrize(
    "planted",
    [
        "`check/_no_such_step.py`",
        "`verify_contract.contract.no_such_function`",
        "`_fastpath.no_such_table`",
        "```\nverify_contract/\n  gone_module.py   a module that was deleted\n```",
    ],
)
def test_a_stale_name_is_caught(planted: str) -> None:
    text = DOC.read_text(encoding="utf-8") + "\n" + planted + "\n"
    references = sorted(set(_named_in_prose(text)) | set(_drawn(text)))
    assert _missing(references) != []
