"""The base class of every generated pydantic model."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

_Model = TypeVar("_Model", bound="ContractModel")


class ContractModel(BaseModel):
    """Refuses NaN and Infinity, which JSON cannot carry, and keeps unknown keys (a closed object's
    generated class sets ``extra="forbid"``); a member whose JSON name is no Python identifier is
    populated by either name and always written under its JSON name, also by a plain
    ``model_dump_json()`` (the same settings as ``verify-contract generate python-pydantic``).

    ``from_json(text)`` is the way to read one from JSON text: the contract's strict parser (SPEC 2.1:
    unique member names at every depth, finite numbers, UTF-8, nesting within the limit), as every other
    binding reads it; pydantic's own ``model_validate_json`` keeps the last of repeated member names.
    ``to_document()`` is the one way to turn a model back into a JSON document: it keeps unknown keys,
    omits fields that were never set (absent stays absent) and never writes ``null`` for an absent field.
    """

    model_config = ConfigDict(
        extra="allow", allow_inf_nan=False, validate_by_name=True, validate_by_alias=True, serialize_by_alias=True
    )

    @classmethod
    def from_json(cls: type[_Model], text: str | bytes) -> _Model:
        """JSON text, parsed strictly and validated; ``pydantic.ValidationError`` when the text breaks SPEC 2.1
        (its message is the finding's: the rule id and where) or the document breaks the contract."""
        from verify_contract.reference import parse_json  # not paid for by importing the models

        parsed = parse_json(text)
        if parsed.finding is not None:
            error = f"{parsed.finding.rule}: {parsed.finding.message}"
            raise ValidationError.from_exception_data(
                cls.__name__, [{"type": "json_invalid", "loc": (), "input": text, "ctx": {"error": error}}]
            )
        return cls.model_validate(parsed.document)

    def to_document(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)
