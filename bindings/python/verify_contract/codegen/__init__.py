"""``verify-contract generate``: bindings for a framework's own code base, rendered from the resolved model.

    from verify_contract.codegen import Request, render, check, read_header

``render(Request(target, version, profile))`` returns every file a target generates (nothing is
written); ``write`` and ``check`` put them on disk or compare them with what is there. Targets are
folders of Jinja2 templates over the model's view (docs/generate.md). ``read_header`` tells which
contract version, profile and target a generated file implements.
"""

from verify_contract.codegen.files import CheckResult, check, write
from verify_contract.codegen.header import GeneratedHeader, read_file_header, read_header
from verify_contract.codegen.render import TARGETS, GenerateError, Request, render

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
