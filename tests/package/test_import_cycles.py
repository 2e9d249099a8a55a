"""No import cycles in the package: the layers (contract -> reference -> check -> cli) only import downwards.

The graph is read from the source with ``ast``, not by importing: an edge for every import of a package
module, at module level or inside a function (a deferred import is still a dependency: it only moves the
cycle from import time to the first call), resolving ``from package import name`` to the submodule when
``name`` is one. Two kinds of import are not edges:

- imports under ``if TYPE_CHECKING:``, which never run (a type named in an annotation);
- a package ``__init__``'s lazy exports (PEP 562 ``__getattr__``): they re-export names for users and are
  no dependency of the modules below, which import each other by their full paths.

A name imported from a package that re-exports it (``from verify_contract.check import Report``, listed in
``check/__init__``, lazily under ``if TYPE_CHECKING:`` or eagerly) is an edge to the module that defines it
(``check._report``), so the public surfaces hide no cycle. Importing ``a.b.c`` also runs the ``__init__`` of
``a`` and ``a.b``; those are lazy or import only their own submodules, and the second rule keeps them out of
the graph.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import verify_contract

PACKAGE = Path(verify_contract.__file__).parent


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST, in_init: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements that run: not under ``if TYPE_CHECKING``, not in an ``__init__``'s ``__getattr__``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for orelse in child.orelse:
                yield from _imports(orelse, in_init)
            continue
        if in_init and isinstance(child, ast.FunctionDef) and child.name == "__getattr__":
            continue
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        yield from _imports(child, in_init)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    base = node.module or ""
    if node.level:  # relative: from the package, one level up per extra dot
        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*anchor, *([node.module] if node.module else [])])
    return base


def reexports(paths: dict[str, Path]) -> dict[str, dict[str, str]]:
    """Each package's names imported from its own submodules by its ``__init__`` (at module level or under
    ``if TYPE_CHECKING:``, its lazy exports) -> the submodule that defines each."""
    found: dict[str, dict[str, str]] = {}
    for name, path in paths.items():
        if path.name != "__init__.py":
            continue
        body = ast.parse(path.read_text(encoding="utf-8")).body
        statements = [*body, *(s for node in body if isinstance(node, ast.If) for s in node.body)]
        for node in statements:
            if isinstance(node, ast.ImportFrom) and (home := _absolute(node, name)).startswith(f"{name}."):
                for alias in node.names:
                    found.setdefault(name, {})[alias.asname or alias.name] = home
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each module of the package at ``root`` and the package modules it imports."""
    paths = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    exported = reexports(paths)
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        is_init = path.name == "__init__.py"
        package = name if is_init else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8")), is_init):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
                continue
            base = _absolute(node, package)
            for alias in node.names:
                if f"{base}.{alias.name}" in paths:
                    targets.add(f"{base}.{alias.name}")
                else:
                    targets.add(exported.get(base, {}).get(alias.name, base))
        graph[name] = {t for t in targets if t in paths and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each in a stable order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE)
    assert len(graph) > 80  # the walk found the package's modules, subpackages included
    assert "verify_contract.check._compose" in graph["verify_contract.check._lines"]  # function-level edges count
    found = cycles(graph)
    assert not found, "import cycles (each line one cycle's modules):\n" + "\n".join(" <-> ".join(c) for c in found)


LAYERS = ("contract", "reference", "check", "cli")
"""The subpackages from the bottom up: each imports only those before it (and the package's own modules)."""


def test_the_layers_import_only_downwards() -> None:
    graph = import_graph(PACKAGE)
    rank = {f"verify_contract.{name}": index for index, name in enumerate(LAYERS)}

    def layer(module: str) -> int | None:
        return rank.get(".".join(module.split(".")[:2]))

    climbs = [
        f"{module} -> {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if (low := layer(module)) is not None and (high := layer(target)) is not None and high > low
    ]
    assert not climbs, "imports of a higher layer:\n" + "\n".join(climbs)


def test_a_cycle_is_found(tmp_path: Path) -> None:
    """The same walk on a small package: a function-level import closing a loop is a cycle; a TYPE_CHECKING
    import and an ``__init__``'s lazy export are not."""
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("def __getattr__(name):\n    from pkg.sub import b\n    return b\n")
    (root / "a.py").write_text("from pkg.sub import b\n")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "b.py").write_text("def f():\n    from pkg import c\n")
    (root / "c.py").write_text("TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from pkg import a\n")
    assert cycles(import_graph(root)) == []
    (root / "c.py").write_text("def g():\n    from . import a\n")
    assert cycles(import_graph(root)) == [["pkg.a", "pkg.c", "pkg.sub.b"]]


def test_a_cycle_through_a_lazy_export_is_found(tmp_path: Path) -> None:
    """A name taken from a package's lazy exports is an edge to the module defining it: a cycle through a
    public surface is still one."""
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "sub" / "__init__.py").write_text(
        "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from pkg.sub._b import g\n"
        "def __getattr__(name):\n    from pkg.sub import _b\n    return _b.g\n"
    )
    (root / "sub" / "_b.py").write_text("def g():\n    from pkg.a import f\n")
    (root / "a.py").write_text("def f(): ...\n")
    assert cycles(import_graph(root)) == []
    (root / "a.py").write_text("from pkg.sub import g\ndef f(): ...\n")
    assert import_graph(root)["pkg.a"] == {"pkg.sub._b"}
    assert cycles(import_graph(root)) == [["pkg.a", "pkg.sub._b"]]


FRONT_ENDS = {
    "verify_contract.__main__": "runs the CLI",
    "verify_contract.ray": "re-exports check's Ray engine (check/_ray) for users",
    "verify_contract.asgi": "serves probe, which scans with check's pre-check",
}
"""The package's top-level modules that run check or the CLI; every other one is library code below them."""


def _reached(graph: dict[str, set[str]], module: str) -> set[str]:
    seen: set[str] = set()
    waiting = [module]
    while waiting:
        for target in graph[waiting.pop()] - seen:
            seen.add(target)
            waiting.append(target)
    return seen


def test_the_library_modules_do_not_reach_up_into_check() -> None:
    """A top-level library module (the failure budget, the findings, the records, ...) imports no step of
    check and nothing of the CLI, directly or through what it imports. The ``check`` package itself is
    allowed: its ``__init__`` imports nothing, and the compiled extension (``_fastscan``) lives in it."""
    graph = import_graph(PACKAGE)
    library = [
        name
        for name in graph
        if name.count(".") == 1 and not (PACKAGE / name.split(".")[1]).is_dir() and name not in FRONT_ENDS
    ]
    assert "verify_contract.budget" in library
    reaches = [
        f"{name} -> {target}"
        for name in sorted(library)
        for target in sorted(_reached(graph, name))
        if target.startswith(("verify_contract.check.", "verify_contract.cli"))
    ]
    assert not reaches, "library modules reaching up:\n" + "\n".join(reaches)
