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
from verify_contract.contract._model import Field, ResolvedModel, contract_model, model_from_data
from verify_contract.contract._resolved import Contract, resolve_contract

__all__ = [
    "ABSENT",
    "MASK_ROLES",
    "MESSAGE_CAP",
    "Contract",
    "Field",
    "MaskTypeError",
    "ResolvedModel",
    "cap",
    "contract_model",
    "effective_mask",
    "json_pointer",
    "mask_locations",
    "mask_paths",
    "model_from_data",
    "pointer_path",
    "resolve_contract",
    "value_at",
    "version_key",
]
