"""verify-contract: the verify-response contract between RL environments and trainers.

Public API (see SPEC.md for the contract itself)::

    from verify_contract import validate, effective_mask, upgrade, parse_json
    from verify_contract.models import GymVerifyResponse, VerifyResponse   # latest version
    from verify_contract import failure_kinds                              # registered kinds
"""

from verify_contract.bindings import model_class, typeddict_adapter
from verify_contract.findings import RULES, Finding, Rule, Severity
from verify_contract.generated import failure_kinds
from verify_contract.jsonio import Parsed, parse_json
from verify_contract.mask import MaskTypeError, effective_mask
from verify_contract.upgrade import UpgradeError, UpgradeResult, upgrade
from verify_contract.validation import ValidationResult, validate
from verify_contract.versions import CONTRACT_VERSIONS, LATEST_VERSION, PROFILES, Profile

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
