"""The check path resolves the contract once: its entry points turn a version (and profile) into a ``Contract``
and the layers below receive that object (or the ``ResolvedModel`` it holds), never a version string that
each would resolve again.

Read from the source with ``ast``: every call of a resolver (``contract_model``, ``check_version``,
``check_profile``, ``resolve_contract``) in the ``check`` and ``reference`` packages must be in ``ENTRY_POINTS``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import verify_contract

PACKAGE = Path(verify_contract.__file__).parent
CHECK_PATH = ("check", "reference")
RESOLVERS = frozenset({"contract_model", "check_version", "check_profile", "resolve_contract"})

ENTRY_POINTS = {
    # Public entry points that take a version string: they resolve it once, at the top.
    ("check/_lines.py", "CheckOptions.__init__"),  # every check run starts here
    ("reference/_validation.py", "validate"),  # validate(document, version, profile)
    ("reference/_validation.py", "deprecated_kinds"),  # deprecated_kinds(version)
    ("check/_budget_metrics.py", "_collector"),  # --metrics-file: a finished Report names its contract
    # Import-time constants, not a run's contract: the same whatever version a run checks.
    ("check/_budget.py", "_text_rules"),  # the text-scope rules (the latest catalogue holds every rule)
    ("reference/_text_findings.py", "<module>"),  # the depth limit (the pre-check declines another)
}


def resolver_calls(root: Path, packages: tuple[str, ...]) -> set[tuple[str, str]]:
    """(file under ``root``, enclosing ``Class.function`` or ``<module>``) of every resolver call."""
    found: set[tuple[str, str]] = set()

    def visit(node: ast.AST, where: str, file: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = where
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = child.name if where == "<module>" else f"{where}.{child.name}"
            if isinstance(child, ast.Call):
                func = child.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if name in RESOLVERS:
                    found.add((file, where))
            visit(child, inner, file)

    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            file = path.relative_to(root).as_posix()
            visit(ast.parse(path.read_text(encoding="utf-8")), "<module>", file)
    return found


def test_the_check_path_resolves_the_contract_only_at_its_entry_points() -> None:
    calls = resolver_calls(PACKAGE, CHECK_PATH)
    assert ("check/_lines.py", "CheckOptions.__init__") in calls  # the scan sees methods and the resolvers
    stray = sorted(calls - ENTRY_POINTS)
    assert not stray, "a layer resolves a version string again; take the Contract (or its model) instead:\n" + (
        "\n".join(f"{file}: {where}" for file, where in stray)
    )
    stale = sorted(ENTRY_POINTS - calls)
    assert not stale, f"entry points that no longer resolve anything (drop them from ENTRY_POINTS): {stale}"


def test_a_layer_that_resolves_again_is_found(tmp_path: Path) -> None:
    """The same scan on a small tree: a method calling ``contract_model`` through a module attribute is
    found; a name that merely contains a resolver's name, or a resolver passed without a call, is not."""
    (tmp_path / "check").mkdir()
    (tmp_path / "check" / "_step.py").write_text(
        "class Step:\n"
        "    def run(self, version):\n"
        "        return model.contract_model(version)\n"
        "def keep(check_version_text, f=contract_model):\n"
        "    return check_version_text\n"
    )
    assert resolver_calls(tmp_path, ("check",)) == {("check/_step.py", "Step.run")}
