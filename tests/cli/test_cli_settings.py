"""The command line parses and prints: its parsed flags (an ``argparse.Namespace``) are read into typed
settings in the command's handler and go no further; every default is stated once, in the library; every
exit code comes from one table (``cli._exit_codes``)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import verify_contract
from verify_contract._budget_caps import DEFAULT_WINDOW
from verify_contract.cli._check_settings import CheckSettings
from verify_contract.cli._main import build_parser

PACKAGE = Path(verify_contract.__file__).parent
CLI = PACKAGE / "cli"

NAMESPACE_READERS = {"run", "from_arguments"}
"""The functions that may take a Namespace: a command's handler (``run``, set by its ``register``) and a
settings builder (``from_arguments``)."""
NAMESPACE_TAKERS = {"from_arguments", "handler"}
"""What a Namespace may be handed to: a settings builder, and (in ``_main``) the handler of the command parsed."""


def _modules() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        if "generated" not in path.relative_to(PACKAGE).parts:
            yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _is_namespace(annotation: ast.expr | None) -> bool:
    return annotation is not None and "Namespace" in ast.unparse(annotation)


def _namespace_names(function: ast.FunctionDef) -> set[str]:
    """The function's names bound to a Namespace: parameters annotated so, and results of ``parse_args``."""
    names = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    bound = {name for name in names if _is_namespace(_annotation(function, name))}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            called = node.value.func
            if isinstance(called, ast.Attribute) and called.attr == "parse_args":
                bound |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return bound


def _annotation(function: ast.FunctionDef, name: str) -> ast.expr | None:
    for argument in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs):
        if argument.arg == name:
            return argument.annotation
    return None


def namespace_leaks(tree: ast.Module, where: str) -> list[str]:
    """Each place a Namespace is taken by a function that is not allowed to, or handed to anything but a
    settings builder (as an argument, returned, stored): ``path:line: what``."""
    leaks = []
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    in_cli = where.startswith("cli/")
    for function in (node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)):
        names = _namespace_names(function)
        takes = any(_is_namespace(a.annotation) for a in (*function.args.args, *function.args.kwonlyargs))
        if takes and not (in_cli and function.name in NAMESPACE_READERS):
            leaks.append(f"{where}:{function.lineno}: {function.name} takes a Namespace")
        for node in ast.walk(function):
            if not (isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load)):
                continue
            parent = parents[node]
            if isinstance(parent, ast.Attribute):  # args.flag: read here
                continue
            if isinstance(parent, ast.Call) and node in parent.args:
                called = parent.func
                name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
                if name in NAMESPACE_TAKERS:
                    continue
                leaks.append(f"{where}:{node.lineno}: {function.name} hands the Namespace to {name}")
                continue
            leaks.append(f"{where}:{node.lineno}: {function.name} lets the Namespace out ({ast.unparse(parent)[:60]})")
    return leaks


def test_no_namespace_leaves_the_command_handlers() -> None:
    leaks = [leak for path, tree in _modules() for leak in namespace_leaks(tree, path.relative_to(PACKAGE).as_posix())]
    assert leaks == []


PLANTED = """
import argparse

def run(args: argparse.Namespace) -> int:
    settings = Settings.from_arguments(args)
    return follow(settings, args)

def follow(settings, args: argparse.Namespace) -> int:
    return args.jobs

def main() -> None:
    args = parser.parse_args()
    keep.append(args)
"""


def test_the_leak_check_catches_a_planted_namespace() -> None:
    """The control: a Namespace handed on, taken by a helper and stored are each caught (so the test above
    can fail)."""
    leaks = namespace_leaks(ast.parse(PLANTED), "cli/_planted.py")
    assert [leak.split(": ", 1)[1] for leak in leaks] == [
        "run hands the Namespace to follow",
        "follow takes a Namespace",
        "main hands the Namespace to append",
    ]
    assert namespace_leaks(ast.parse(PLANTED.replace("return follow(settings, args)", "return 0")), "check/x.py")


def _exit_literals(tree: ast.Module, where: str) -> Iterator[str]:
    """Exit codes written as numbers: an integer returned, or 128 (a signal's base), outside the table."""
    for function in (node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)):
        if (where, function.name) == ("cli/_main.py", "_terminal_columns"):  # a width, not an exit code
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant) and type(node.value.value) is int:
                yield f"{where}:{node.lineno}: return {node.value.value}"
            if isinstance(node, ast.Constant) and node.value == 128:
                yield f"{where}:{node.lineno}: 128"


def test_every_exit_code_comes_from_the_table() -> None:
    found = [
        literal
        for path, tree in _modules()
        if path.parent == CLI and path.name != "_exit_codes.py"
        for literal in _exit_literals(tree, path.relative_to(PACKAGE).as_posix())
    ]
    assert found == []
    planted = "def follow(stop):\n    if stop:\n        return 128 + stop.signum\n    return 2\n"
    assert sorted(_exit_literals(ast.parse(planted), "cli/_follow.py")) == [
        "cli/_follow.py:3: 128",
        "cli/_follow.py:4: return 2",
    ]


def settings_of(*flags: str) -> CheckSettings:
    arguments = ["check", "rollouts.jsonl", *flags]
    return CheckSettings.from_arguments(build_parser(arguments).parse_args(arguments))


@pytest.mark.parametrize(
    ("flags", "budgeted"),
    [
        ((), False),
        (("--max-masked", "0"), True),  # zero is the strictest bound, not no bound
        (("--max-consecutive-masked", "0"), True),
        (("--group-by", ""), True),
        (("--retry-list", "retry.jsonl"), True),
        (("--follow",), True),
        (("--jobs", "2", "--no-failures-file"), False),
    ],
)
def test_a_budget_flag_makes_a_budget(flags: tuple[str, ...], budgeted: bool) -> None:
    assert (settings_of(*flags).budget is not None) is budgeted


def test_a_default_left_out_is_the_librarys() -> None:
    """The window not given reaches ``FailureBudget`` as not given: its default is stated once, there."""
    settings = settings_of("--max-masked", "0.2")
    assert settings.budget is not None and settings.budget.window is None
    budget = settings.failure_budget()
    assert budget is not None and (budget.window, budget.min_samples) == (DEFAULT_WINDOW, DEFAULT_WINDOW)
    budget = settings_of("--window", "8", "--group-by", "a.b,c", "--retry-list", "r.jsonl").failure_budget()
    assert budget is not None and (budget.window, budget.group_names, budget.track_identities) == (
        8,
        ("a.b", "c"),
        True,
    )
