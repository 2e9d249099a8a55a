"""The base class of every generated pydantic model."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class ContractModel(BaseModel):
    """Refuses NaN and Infinity, which JSON cannot carry; the generated subclasses add ``extra="allow"``.

    ``to_document()`` is the one way to turn a model back into a JSON document: it keeps unknown keys,
    omits fields that were never set (absent stays absent) and never writes ``null`` for an absent field.
    """

    model_config = ConfigDict(allow_inf_nan=False)

    def to_document(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)
