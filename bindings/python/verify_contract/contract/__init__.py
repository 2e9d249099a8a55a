"""The contract as data: the resolved model of each version and what it is built from.

``_model`` (the typed model, ``contract_model(version)``), ``_resolve`` (schema + registry + contract.yaml
-> model, run by the generators), ``_versions`` (released versions, profiles, defaults), ``_schemas`` (the
JSON Schema documents), ``_registry`` (the failure-kind registry's loader and lint),
``_failure_kind_info`` (a registered kind's facts), ``_resolved`` (``Contract``: one run's version, profile and
model, resolved once by ``resolve_contract`` and handed to the layers below).
"""

from __future__ import annotations

from verify_contract.contract._model import Field, ResolvedModel, contract_model, model_from_data
from verify_contract.contract._resolved import Contract, resolve_contract

__all__ = ["Contract", "Field", "ResolvedModel", "contract_model", "model_from_data", "resolve_contract"]
