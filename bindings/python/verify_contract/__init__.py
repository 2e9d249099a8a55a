"""verify-contract: the verify-response contract between RL environments and trainers.

Public API (see SPEC.md for the contract itself)::

    from verify_contract import validate, effective_mask, upgrade, parse_json
    from verify_contract.models import GymVerifyResponse, VerifyResponse   # latest version
    from verify_contract import failure_kinds                              # registered kinds
"""

from __future__ import annotations

import importlib
import sys
import types

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any

    from verify_contract.bindings import model_class, typeddict_adapter
    from verify_contract.contract import (
        CONTRACT_VERSIONS,
        LATEST_VERSION,
        PROFILES,
        MaskTypeError,
        Profile,
        effective_mask,
    )
    from verify_contract.findings import RULES, Finding, Rule, Severity
    from verify_contract.generated import failure_kinds
    from verify_contract.reference import Parsed, ValidationResult, parse_json, validate
    from verify_contract.upgrade import UpgradeError, UpgradeResult, upgrade

__all__ = [
    "CONTRACT_VERSIONS",
    "LATEST_VERSION",
    "PROFILES",
    "RULES",
    "Finding",
    "MaskTypeError",
    "Parsed",
    "Profile",
    "Rule",
    "Severity",
    "UpgradeError",
    "UpgradeResult",
    "ValidationResult",
    "effective_mask",
    "failure_kinds",
    "model_class",
    "parse_json",
    "typeddict_adapter",
    "upgrade",
    "validate",
]

# Imported on first use (PEP 562): the command line, `check` above all, should not pay for pydantic and
# jsonschema before it needs them.
_SOURCES = {
    "model_class": "verify_contract.bindings",
    "typeddict_adapter": "verify_contract.bindings",
    "RULES": "verify_contract.findings",
    "Finding": "verify_contract.findings",
    "Rule": "verify_contract.findings",
    "Severity": "verify_contract.findings",
    "failure_kinds": "verify_contract.generated.failure_kinds",
    "Parsed": "verify_contract.reference",
    "parse_json": "verify_contract.reference",
    "MaskTypeError": "verify_contract.contract",
    "effective_mask": "verify_contract.contract",
    "UpgradeError": "verify_contract.upgrade",
    "UpgradeResult": "verify_contract.upgrade",
    "upgrade": "verify_contract.upgrade",
    "ValidationResult": "verify_contract.reference",
    "validate": "verify_contract.reference",
    "CONTRACT_VERSIONS": "verify_contract.contract",
    "LATEST_VERSION": "verify_contract.contract",
    "PROFILES": "verify_contract.contract",
    "Profile": "verify_contract.contract",
}


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(source)
    value = module if name == "failure_kinds" else getattr(module, name)  # the one exported module
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        # Importing the submodule verify_contract.upgrade binds it here under the name of the exported
        # function; the package's `upgrade` stays the function, as when everything was imported eagerly.
        if name == "upgrade" and isinstance(value, types.ModuleType):
            value = value.upgrade
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
