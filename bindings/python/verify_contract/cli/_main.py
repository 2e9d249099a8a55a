"""The ``verify-contract`` command line: one subcommand per module, each with a ``register`` function."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from verify_contract.cli._exit_codes import EXIT_BROKEN_PIPE

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any

# Each module defines ``register(subparsers)``, adding its subcommand with a ``handler`` default that
# returns the exit code (``_exit_codes``: 0 all good, 1 the input breaks the contract, 2 usage or I/O error).
COMMAND_MODULES = {
    "check": "verify_contract.cli._check",
    "diff": "verify_contract.cli._diff",
    "conformance": "verify_contract.cli._conformance",
    "upgrade": "verify_contract.cli._upgrade",
    "generate": "verify_contract.cli._generate",
    "probe": "verify_contract.cli._probe",
    "docs": "verify_contract.cli._docs",
}


def version_text() -> str:
    # importlib.metadata costs ~20 ms of start-up: imported only when --version asks for it.
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    from verify_contract.contract import CONTRACT_VERSIONS, LATEST_VERSION

    try:
        installed = package_version("verify-contract")
    except PackageNotFoundError:  # imported from a source tree that was never installed
        installed = "unknown"
    return f"verify-contract {installed} (contract {LATEST_VERSION}; knows {', '.join(CONTRACT_VERSIONS)})"


def _terminal_columns() -> int:
    """What ``shutil.get_terminal_size`` answers: $COLUMNS, else the terminal's width, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
        if columns > 0:
            return columns
    except ValueError:
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 80
    except (OSError, ValueError):
        return 80


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, without ``shutil`` (and the compression modules it imports) for the width:
    argparse builds a formatter on every ``add_argument``, so that import is paid on every start-up."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        if width is None:
            width = _terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)


class _VersionAction(argparse.Action):
    """``--version``, with its text built only when asked for."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        sys.stdout.write(version_text() + "\n")  # on stdout, as argparse's own version action prints it
        parser.exit()


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; given the arguments, it registers only the subcommand they name (each command module
    imports what its command needs: the differ, pydantic, ...), and every one for help or a usage error."""
    parser = _Parser(prog="verify-contract", description="The verify-response contract toolkit.")
    parser.add_argument("--version", action=_VersionAction, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    named = argv[0] if argv else None
    for command, module in COMMAND_MODULES.items():
        if named in COMMAND_MODULES and command != named:
            continue
        importlib.import_module(module).register(commands)
    return parser


def run_command(argv: list[str] | None = None) -> int:
    """Parse the arguments, run the command, return its exit code (``verify_contract.cli.main`` calls it)."""
    from verify_contract.cli import _stops as stops

    arguments = sys.argv[1:] if argv is None else argv
    try:
        args = build_parser(arguments).parse_args(arguments)  # imports the command's module: ^C may come here
        with stops.installed():  # SIGTERM and SIGHUP stop as ^C does
            code: int = args.handler(args)
            sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's own flush at exit
    except KeyboardInterrupt as stop:  # ^C, SIGTERM, SIGHUP: no traceback (the --jobs workers stop with the parent)
        print(f"verify-contract: {stops.message(stop)}", file=sys.stderr)
        return stops.exit_status(stop)
    except BrokenPipeError:
        # The reader stopped reading (`| head`): stop quietly, as grep does. stdout is pointed at devnull so
        # that the interpreter's final flush of what is still buffered cannot raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return code
