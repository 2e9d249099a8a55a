"""The pydantic models of the latest contract version.

These names are public API: a schema change that renames one breaks importers, and
``tests/test_bindings.py`` pins them.
"""

from verify_contract.generated.v1_2_0.models import (
    FailureKindName,
    GymVerifyResponse,
    InstanceConfig,
    RegisteredFailureKind,
    Response,
    ResponsesCreateParams,
    VerifyResponse,
)

__all__ = [
    "FailureKindName",
    "GymVerifyResponse",
    "InstanceConfig",
    "RegisteredFailureKind",
    "Response",
    "ResponsesCreateParams",
    "VerifyResponse",
]
