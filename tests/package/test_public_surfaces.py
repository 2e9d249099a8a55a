"""The underscore means private: no module of the package imports another sub-package's private module or
private name; what other packages need, a sub-package exports from its ``__init__``.

Read from the source with ``ast`` (every import statement, at module level, in a function or under ``if
TYPE_CHECKING:``, relative ones resolved). A dotted target is private from its first component that starts
with an underscore (``verify_contract.check._run``, ``verify_contract.budget._kind_of``); the package or
module holding that component owns it, and only modules inside the owner may import it. So ``check/_lines``
may import ``check._compose``, every module may import the root package's own ``_counted`` or
``_budget_caps``, and ``cli/_follow`` may not import ``check._tail`` but imports ``Tail`` from
``verify_contract.check``.

The sub-packages' lazy exports (``_lazy.lazy_exports``) list each name twice, under ``TYPE_CHECKING`` and in
the ``_HOME`` table that serves it; the second test holds the two, ``__all__`` and the served objects together.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import verify_contract

PACKAGE = Path(verify_contract.__file__).parent

ALLOWED: dict[tuple[str, str], str] = {
    ("verify_contract._window", "verify_contract.check._fastscan"): (
        "the compiled extension is built into check/ (setup.py), and the failure budget's window pass is its one "
        "user outside check: through check's surface the library's budget would load check's package table, "
        "and an extension that failed to build must read as None here, not as a missing export"
    ),
}
"""(importing module, private target) -> why the import stays. Each entry must still be needed."""


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


class PrivateImport:
    """One import of another sub-package's private module or name: where, what, and what to write instead."""

    def __init__(self, where: str, line: int, importer: str, target: str, owner: str) -> None:
        self.where, self.line, self.importer, self.target, self.owner = where, line, importer, target, owner

    def advice(self) -> str:
        """The public spelling of ``target``: the owner's export of the same object where there is one."""
        module, _, name = self.target.rpartition(".")
        if module == self.owner and _is_module(self.target):  # a private module
            return f"import the names it uses from {self.owner} (exported by its __init__; add those missing)"
        if module == self.owner:  # a private name of a public module (``budget._kind_of``)
            return f"make {name} public in {self.owner} (no underscore) and import that"
        owner = importlib.import_module(self.owner)
        value = getattr(importlib.import_module(module), name, None)
        exported = [public for public in getattr(owner, "__all__", ()) if getattr(owner, public) is value]
        if value is not None and exported:
            spelled = exported[0] if exported[0] == name else f"{exported[0]} as {name}"
            return f"from {self.owner} import {spelled}"
        return f"export {name} from {self.owner} (its __init__), then: from {self.owner} import {name}"

    def __str__(self) -> str:
        return f"{self.where}:{self.line}: {self.importer} imports {self.target}; use: {self.advice()}"


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:  # a name in a module, not a submodule
        return False


def _targets(node: ast.Import | ast.ImportFrom, package: str) -> Iterator[str]:
    """What the statement imports, each a dotted path: a module, or ``module.name`` for each name it takes."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:  # relative: from the package, one level up per extra dot
        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*anchor, *([node.module] if node.module else [])])
    yield from (f"{base}.{alias.name}" for alias in node.names if alias.name != "*")


def _owner(target: str) -> str | None:
    """The package or module that owns the first private component of ``target`` (None: all public)."""
    parts = target.split(".")
    for index, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:index])
    return None


def private_imports(root: Path) -> list[PrivateImport]:
    """Every import in the package at ``root`` of a private module or name that its importer is not inside,
    one per imported name (``from a._b import c, d``: ``a._b.c`` and ``a._b.d``)."""
    found: list[PrivateImport] = []
    for path in sorted(root.rglob("*.py")):
        importer = module_name(path, root)
        package = importer if path.name == "__init__.py" else importer.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _targets(node, package):
                owner = _owner(target)
                if owner is None or not target.startswith(f"{root.name}."):
                    continue
                if importer == owner or importer.startswith(f"{owner}."):
                    continue
                where = path.relative_to(root.parent).as_posix()
                found.append(PrivateImport(where, node.lineno, importer, target, owner))
    return found


def test_no_module_imports_another_sub_packages_private_module() -> None:
    found = private_imports(PACKAGE)
    offending = [item for item in found if (item.importer, item.target) not in ALLOWED]
    assert not offending, "imports of another sub-package's private module or name:\n" + "\n".join(map(str, offending))
    used = {(item.importer, item.target) for item in found}
    stale = sorted(set(ALLOWED) - used)
    assert not stale, f"ALLOWED entries no longer needed (remove them): {stale}"


def test_a_planted_private_import_is_found_and_named_with_its_public_spelling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same walk on a small package: imports inside the owner pass, a relative import resolves, a private
    name of a public module counts, and each report gives file:line and what to write instead."""
    root = tmp_path / "planted"
    (root / "sub").mkdir(parents=True)
    (root / "other").mkdir()
    (root / "__init__.py").write_text("")
    (root / "_shared.py").write_text("")  # the root's own private module: every module may use it
    (root / "sub" / "__init__.py").write_text("from planted.sub._impl import thing\n__all__ = ['thing']\n")
    (root / "sub" / "_impl.py").write_text("from planted import _shared\nfrom . import _near\nthing = object()\n")
    (root / "sub" / "_near.py").write_text("")
    (root / "budget.py").write_text("def _kind_of(row): ...\n")
    (root / "other" / "__init__.py").write_text("")
    (root / "other" / "mod.py").write_text(
        "import planted.sub\n"
        "def f():\n"
        "    from planted.sub._impl import thing\n"
        "    from ..budget import _kind_of\n"
        "TYPE_CHECKING = False\n"
        "if TYPE_CHECKING:\n"
        "    from planted.sub import _near\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        reports = [str(item) for item in private_imports(root)]
    finally:
        for name in [name for name in sys.modules if name.split(".")[0] == "planted"]:
            del sys.modules[name]
    assert reports == [
        "planted/other/mod.py:3: planted.other.mod imports planted.sub._impl.thing; use: from planted.sub import thing",
        "planted/other/mod.py:4: planted.other.mod imports planted.budget._kind_of; use: "
        "make _kind_of public in planted.budget (no underscore) and import that",
        "planted/other/mod.py:7: planted.other.mod imports planted.sub._near; use: "
        "import the names it uses from planted.sub (exported by its __init__; add those missing)",
    ]


def test_the_report_names_the_public_export_to_use() -> None:
    """On the real package: a planted import of a private home module is answered with the owner's export."""
    item = PrivateImport(
        "x.py", 1, "verify_contract.cli._x", "verify_contract.check._tail.Tail", "verify_contract.check"
    )
    assert item.advice() == "from verify_contract.check import Tail"
    renamed = PrivateImport(
        "x.py", 1, "verify_contract.cli._x", "verify_contract.check._inputs.resolve", "verify_contract.check"
    )
    assert renamed.advice() == "from verify_contract.check import resolve_inputs as resolve"
    missing = PrivateImport(
        "x.py", 1, "verify_contract.cli._x", "verify_contract.check._tail.CHUNK_BYTES", "verify_contract.check"
    )
    assert missing.advice().startswith("export CHUNK_BYTES from verify_contract.check")


LAZY_PACKAGES = ("contract", "reference", "check", "probe", "cli")


def _type_checking_names(init: Path) -> dict[str, str]:
    """The names an ``__init__`` imports under ``if TYPE_CHECKING:`` -> their home, as ``_HOME`` spells it."""
    names: dict[str, str] = {}
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            continue
        for statement in node.body:
            if isinstance(statement, ast.ImportFrom) and (statement.module or "").startswith("verify_contract."):
                module = (statement.module or "").rsplit(".", 1)[1]
                for alias in statement.names:
                    public = alias.asname or alias.name
                    names[public] = module if public == alias.name else f"{module}:{alias.name}"
    return names


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_each_lazy_export_is_declared_once_and_served_from_its_home(name: str) -> None:
    package = importlib.import_module(f"verify_contract.{name}")
    home_table: dict[str, str] = package._HOME
    assert _type_checking_names(PACKAGE / name / "__init__.py") == home_table
    assert set(home_table) <= set(package.__all__)
    for public in package.__all__:
        value = getattr(package, public)
        if public in home_table:
            module, _, attribute = home_table[public].partition(":")
            assert value is getattr(importlib.import_module(f"{package.__name__}.{module}"), attribute or public)
    with pytest.raises(AttributeError, match="not_a_name"):
        package.not_a_name  # noqa: B018
