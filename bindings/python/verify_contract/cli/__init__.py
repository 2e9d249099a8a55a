"""The ``verify-contract`` command line: ``_main`` parses the arguments and imports only the module of the
command that runs (``_check``, ``_diff``, ``_conformance``, ``_generate``, ``_probe``, ``_upgrade``).

The documentation site reads the parser (``build_parser``, ``COMMAND_MODULES``) and the report's text form
(``format_text``, imported on first use) from here."""

from __future__ import annotations

from verify_contract._lazy import lazy_exports
from verify_contract.cli._main import COMMAND_MODULES, build_parser, main

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from verify_contract.cli._check_output import format_text

_HOME = {"format_text": "_check_output"}
__getattr__ = lazy_exports(__name__, _HOME)

__all__ = ["COMMAND_MODULES", "build_parser", "format_text", "main"]
