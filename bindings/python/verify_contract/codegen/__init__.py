"""``verify-contract generate``: bindings for a framework's own code base, rendered from the resolved model.

    from verify_contract.codegen import Request, render, check, read_header

``render(Request(target, version, profile))`` returns every file a target generates (nothing is
written); ``write`` and ``check`` put them on disk or compare them with what is there. Targets are
folders of Jinja2 templates over the model's view (docs/generate.md). ``read_header`` tells which
contract version, profile and target a generated file implements. Names are imported on first use
(the renderer loads Jinja2 and the models), so the command line starts as fast without it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see; at run time each name loads on first use
    from verify_contract.codegen.files import CheckResult, check, write
    from verify_contract.codegen.header import GeneratedHeader, read_file_header, read_header
    from verify_contract.codegen.renderer import GenerateError, Request, render
    from verify_contract.codegen.targets import TARGETS

_EXPORTS = {
    "CheckResult": "files",
    "check": "files",
    "write": "files",
    "GeneratedHeader": "header",
    "read_file_header": "header",
    "read_header": "header",
    "GenerateError": "renderer",
    "Request": "renderer",
    "render": "renderer",
    "TARGETS": "targets",
}
__all__ = [
    "TARGETS",
    "CheckResult",
    "GenerateError",
    "GeneratedHeader",
    "Request",
    "check",
    "read_file_header",
    "read_header",
    "render",
    "write",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
