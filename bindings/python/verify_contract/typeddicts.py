"""The TypedDicts of the latest contract version (static types; validate through ``typeddict_adapter``)."""

from verify_contract.generated.v1_2_0.typeddicts import (
    FailureKind,
    FailureKindName,
    GymVerifyResponse,
    InstanceConfig,
    RegisteredFailureKind,
    Response,
    ResponsesCreateParams,
    VerifyResponse,
)

__all__ = [
    "FailureKind",
    "FailureKindName",
    "GymVerifyResponse",
    "InstanceConfig",
    "RegisteredFailureKind",
    "Response",
    "ResponsesCreateParams",
    "VerifyResponse",
]
