"""The ``verify-contract`` command line: one subcommand per module, each with a ``register`` function."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version

from verify_contract.versions import CONTRACT_VERSIONS, LATEST_VERSION

# Each module defines ``register(subparsers)``, adding its subcommand with a ``handler`` default that
# returns the exit code: 0 all good, 1 the input breaks the contract, 2 usage or I/O error.
COMMAND_MODULES = (
    "verify_contract.check_command",
    "verify_contract.diff_command",
    "verify_contract.conformance_command",
    "verify_contract.upgrade_command",
    "verify_contract.generate_command",
)

EXIT_BROKEN_PIPE = 141
"""128 + SIGPIPE: what a shell reports for grep or cat whose reader went away (``| head``)."""


def version_text() -> str:
    try:
        installed = package_version("verify-contract")
    except PackageNotFoundError:  # imported from a source tree that was never installed
        installed = "unknown"
    return f"verify-contract {installed} (contract {LATEST_VERSION}; knows {', '.join(CONTRACT_VERSIONS)})"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="verify-contract", description="The verify-response contract toolkit.")
    parser.add_argument("--version", action="version", version=version_text())
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.handler(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's own flush at exit
    except BrokenPipeError:
        # The reader stopped reading (`| head`): stop quietly, as grep does. stdout is pointed at devnull so
        # that the interpreter's final flush of what is still buffered cannot raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return code


if __name__ == "__main__":
    sys.exit(main())
