"""The ``verify-contract`` command line: one subcommand per module, each with a ``register`` function."""

from __future__ import annotations

import argparse
import importlib
import sys

# Each module defines ``register(subparsers)``, adding its subcommand with a ``handler`` default that
# returns the exit code: 0 all good, 1 the input breaks the contract, 2 usage or I/O error.
COMMAND_MODULES = (
    "verify_contract.check_command",
    "verify_contract.diff_command",
    "verify_contract.conformance_command",
    "verify_contract.upgrade_command",
    "verify_contract.generate_command",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="verify-contract", description="The verify-response contract toolkit.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
