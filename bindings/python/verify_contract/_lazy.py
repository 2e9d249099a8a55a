"""A package's public names imported on first use (PEP 562), each from the module that defines it.

A package's ``__init__`` states its lazily exported names twice, on purpose: under ``if TYPE_CHECKING:`` as
imports from their home modules (what type checkers, readers and tests/package/test_import_cycles.py see) and in the
``homes`` table that serves them at run time (tests/package/test_public_surfaces.py holds the two together). Importing
the package then costs nothing: ``check``'s start-up imports only the steps a run uses.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def lazy_exports(package: str, homes: dict[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: ``homes`` maps each public name to its home module, relative to the
    package (``"_report"``), followed by ``":attribute"`` where the home module calls it otherwise."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = home.partition(":")
        # The import statement's own machinery, not importlib.import_module: -X importtime logs only the
        # former, and tests/check/test_check_startup.py reads that log for what a plain check imports.
        __import__(f"{package}.{module}")
        value = getattr(sys.modules[f"{package}.{module}"], attribute or name)
        setattr(sys.modules[package], name, value)  # later look-ups skip this function
        return value

    return __getattr__
