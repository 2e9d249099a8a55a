"""The base class of every generated pydantic model."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class ContractModel(BaseModel):
    """Refuses NaN and Infinity, which JSON cannot carry, and keeps unknown keys (a closed object's
    generated class sets ``extra="forbid"``); a member whose JSON name is no Python identifier is
    populated by either name and always written under its JSON name, also by a plain
    ``model_dump_json()`` (the same settings as ``verify-contract generate python-pydantic``).

    ``to_document()`` is the one way to turn a model back into a JSON document: it keeps unknown keys,
    omits fields that were never set (absent stays absent) and never writes ``null`` for an absent field.
    """

    model_config = ConfigDict(
        extra="allow", allow_inf_nan=False, validate_by_name=True, validate_by_alias=True, serialize_by_alias=True
    )

    def to_document(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)
