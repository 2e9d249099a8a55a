"""The contract as data: the resolved model of each version, what it is built from, and how a document is read.

``_model`` (the typed model, ``contract_model(version)``), ``_document`` (reading a document: member paths and
``ABSENT``, JSON Pointer, the effective mask, version order, the message cap: the one implementation every
path imports from here), ``_resolve`` (schema + registry + contract.yaml -> model, run by the generators),
``_versions`` (released versions, profiles, defaults), ``_schemas`` (the JSON Schema documents), ``_registry``
(the failure-kind registry's loader and lint), ``_failure_kind_info`` (a registered kind's facts),
``_resolved`` (``Contract``: one run's version, profile and model, resolved once by ``resolve_contract`` and
handed to the layers below).
"""

from __future__ import annotations

from verify_contract._lazy import lazy_exports
from verify_contract.contract._document import (
    ABSENT,
    MASK_ROLES,
    MESSAGE_CAP,
    MaskTypeError,
    cap,
    effective_mask,
    json_pointer,
    mask_locations,
    mask_paths,
    pointer_path,
    value_at,
    version_key,
)
from verify_contract.contract._model import Field, ResolvedModel, RuleChoice, contract_model, model_from_data
from verify_contract.contract._resolved import Contract, resolve_contract
from verify_contract.contract._versions import (
    CONTRACT_VERSIONS,
    DEFAULT_PROFILE,
    LATEST_VERSION,
    PROFILE_DEFINITIONS,
    PROFILES,
    Profile,
    check_profile,
    check_version,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from verify_contract.contract._failure_kind_info import Deprecation, FailureKindInfo
    from verify_contract.contract._registry import FILE as REGISTRY_FILE
    from verify_contract.contract._registry import Kind, RegistryData, kind_info, parse_registry, rename_problem
    from verify_contract.contract._schemas import (
        declared_fields,
        profile_reference,
        profile_schema,
        registered_failure_kinds,
        registry_of,
        schema_document,
        schema_registry,
    )

_HOME = {
    **dict.fromkeys(("Deprecation", "FailureKindInfo"), "_failure_kind_info"),
    **dict.fromkeys(("Kind", "RegistryData", "kind_info", "parse_registry", "rename_problem"), "_registry"),
    "REGISTRY_FILE": "_registry:FILE",
    **dict.fromkeys(
        (
            "declared_fields",
            "profile_reference",
            "profile_schema",
            "registered_failure_kinds",
            "registry_of",
            "schema_document",
            "schema_registry",
        ),
        "_schemas",
    ),
}
__getattr__ = lazy_exports(__name__, _HOME)

__all__ = [
    "ABSENT",
    "CONTRACT_VERSIONS",
    "DEFAULT_PROFILE",
    "LATEST_VERSION",
    "MASK_ROLES",
    "MESSAGE_CAP",
    "PROFILES",
    "PROFILE_DEFINITIONS",
    "REGISTRY_FILE",
    "Contract",
    "Deprecation",
    "FailureKindInfo",
    "Field",
    "Kind",
    "MaskTypeError",
    "Profile",
    "RegistryData",
    "ResolvedModel",
    "RuleChoice",
    "cap",
    "check_profile",
    "check_version",
    "contract_model",
    "declared_fields",
    "effective_mask",
    "json_pointer",
    "kind_info",
    "mask_locations",
    "mask_paths",
    "model_from_data",
    "parse_registry",
    "pointer_path",
    "profile_reference",
    "profile_schema",
    "registered_failure_kinds",
    "registry_of",
    "rename_problem",
    "resolve_contract",
    "schema_document",
    "schema_registry",
    "value_at",
    "version_key",
]
