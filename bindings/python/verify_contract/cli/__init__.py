"""The ``verify-contract`` command line: ``_main`` parses the arguments and imports only the module of the
command that runs (``_check``, ``_diff``, ``_conformance``, ``_generate``, ``_probe``, ``_upgrade``).

The documentation site reads the parser (``build_parser``, ``COMMAND_MODULES``) and the report's text form
(``format_text``, imported on first use) from here."""

from __future__ import annotations

from verify_contract._lazy import lazy_exports
from verify_contract.cli._exit_codes import EXIT_INTERRUPTED

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from verify_contract.cli._check_output import format_text
    from verify_contract.cli._main import COMMAND_MODULES, build_parser

_HOME = {"format_text": "_check_output", "COMMAND_MODULES": "_main", "build_parser": "_main"}
__getattr__ = lazy_exports(__name__, _HOME)


def main(argv: list[str] | None = None) -> int:
    """The ``verify-contract`` command (its console script and ``python -m verify_contract``): the exit code.

    Importing this package costs almost nothing, so that a ^C which comes while the command is still importing
    its modules (a second or more on a loaded machine) ends the way one during the run does: one line on stderr
    and exit 130, never a traceback."""
    try:
        from verify_contract.cli._main import run_command
    except KeyboardInterrupt:
        import sys

        print("verify-contract: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return run_command(argv)


__all__ = ["COMMAND_MODULES", "build_parser", "format_text", "main"]
