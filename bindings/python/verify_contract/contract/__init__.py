"""The contract as data: the resolved model of each version and what it is built from.

``_model`` (the typed model, ``contract_model(version)``), ``_resolve`` (schema + registry + contract.yaml
-> model, run by the generators), ``_versions`` (released versions, profiles, defaults), ``_schemas`` (the
JSON Schema documents), ``_registry`` (the failure-kind registry's loader and lint),
``_failure_kind_info`` (a registered kind's facts).
"""

from __future__ import annotations

from verify_contract.contract._model import ContractModel, Field, contract_model, model_from_data

__all__ = ["ContractModel", "Field", "contract_model", "model_from_data"]
