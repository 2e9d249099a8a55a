"""The generated bindings of a version and profile: pydantic model classes and TypedDict adapters."""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType
from typing import Any

from pydantic import ConfigDict, TypeAdapter, with_config
from typing_extensions import is_typeddict

from verify_contract.contract import PROFILE_DEFINITIONS, Profile, check_profile, check_version
from verify_contract.model_base import ContractModel

# Validation settings the TypedDicts need to give the schema's verdicts; generated TypedDicts
# cannot carry pydantic config, so it is attached here, once per module.
TYPEDDICT_CONFIG = ConfigDict(strict=True, allow_inf_nan=False, extra="allow")


def _module(version: str, kind: str) -> ModuleType:
    check_version(version)
    return importlib.import_module(f"verify_contract.generated.v{version.replace('.', '_')}.{kind}")


def model_class(version: str, profile: Profile) -> type[ContractModel]:
    """The pydantic model of a profile, e.g. ``GymVerifyResponse`` of 1.2.0."""
    check_profile(profile)
    cls: type[ContractModel] = getattr(_module(version, "models"), PROFILE_DEFINITIONS[profile])
    return cls


@cache
def _configured_typeddicts(version: str) -> ModuleType:
    module = _module(version, "typeddicts")
    for value in vars(module).values():
        if is_typeddict(value) and value.__module__ == module.__name__:
            with_config(TYPEDDICT_CONFIG)(value)
    return module


@cache
def typeddict_adapter(version: str, profile: Profile) -> TypeAdapter[Any]:
    """A strict ``TypeAdapter`` over the TypedDict of a profile, keeping unknown keys."""
    check_profile(profile)
    return TypeAdapter(getattr(_configured_typeddicts(version), PROFILE_DEFINITIONS[profile]))
