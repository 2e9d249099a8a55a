"""The ``verify-contract`` command line: ``_main`` parses the arguments and imports only the module of the
command that runs (``_check``, ``_diff``, ``_conformance``, ``_generate``, ``_probe``, ``_upgrade``)."""

from __future__ import annotations

from verify_contract.cli._main import main

__all__ = ["main"]
