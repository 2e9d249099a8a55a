"""What ``check`` counts for one line: its findings, its verdict and, for a valid line, the facts the report
counts (effective mask, legacy mask in use, failure-kind class). Every path of ``check`` builds an
``Outcome``; this module imports nothing heavy, so a run whose lines need no reference never loads it."""

from __future__ import annotations

from functools import cache

from verify_contract.check._fastpath import KIND_CLASSES
from verify_contract.contract import MaskTypeError, effective_mask, value_at
from verify_contract.findings import Finding, Severity
from verify_contract.records import FrozenRecord
from verify_contract.reference import registered_kinds, role_fields

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any

    from verify_contract.contract import ResolvedModel


class Outcome(FrozenRecord):
    """What the reference says about one document, and the facts the report counts for a valid one."""

    __slots__ = ("findings", "valid", "masked", "legacy", "kind")  # noqa: RUF023 (the constructor's order)
    findings: tuple[Finding, ...]
    valid: bool
    masked: bool
    legacy: bool
    kind: str | None

    def __init__(
        self,
        findings: tuple[Finding, ...],
        valid: bool,
        masked: bool = False,
        legacy: bool = False,
        kind: str | None = None,
    ) -> None:
        # The slots one by one (one outcome per distinct line; see Finding.__init__).
        _set_findings(self, findings)
        _set_valid(self, valid)
        _set_masked(self, masked)
        _set_legacy(self, legacy)
        _set_kind(self, kind)


_set_findings, _set_valid, _set_masked, _set_legacy, _set_kind = Outcome._slot_setters
ERROR = Severity.ERROR


@cache
def _fact_fields(model: ResolvedModel) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None, str, frozenset[str]]:
    """The legacy mask's and the failure kind's member paths in ``model`` (None: not declared), the
    namespace separator and the registered kinds."""
    _, kind, kinds, _, legacy = role_fields(model)
    return (
        legacy.path if legacy is not None else None,
        kind.path if kind is not None and kinds is not None else None,
        kinds["namespace_separator"] if kinds else "",
        registered_kinds(model),
    )


def outcome_of(document: Any, findings: tuple[Finding, ...], model: ResolvedModel) -> Outcome:
    """The outcome of a document with these findings: invalid, or valid with what it counts (the mask, the
    legacy mask, the failure kind)."""
    for item in findings:
        if item.severity is ERROR:
            return Outcome(findings, False)
    try:
        masked = effective_mask(document)
    except MaskTypeError:  # valid at a version that does not type the mask: no mask to count
        masked = False
    legacy_path, kind_path, separator, registered = _fact_fields(model)
    legacy = legacy_path is not None and isinstance(value_at(document, legacy_path), bool)
    kind_class = None
    kind = value_at(document, kind_path) if kind_path is not None else None
    if isinstance(kind, str):
        registered_class, namespaced_class, unregistered_class = KIND_CLASSES
        kind_class = (
            namespaced_class if separator in kind else registered_class if kind in registered else unregistered_class
        )
    return Outcome(findings, True, masked, legacy, kind_class)
