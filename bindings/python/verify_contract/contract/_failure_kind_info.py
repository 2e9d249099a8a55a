"""The failure-kind registry entry, typed once: the runtime's data in ``verify_contract.generated.failure_kinds``,
the generators' parsed registry (``generators.registry``), the registry lint's allowed values and keys
(``verify_contract.contract._registry``) and the TypeScript ``FailureKindInfo`` interface are all this."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal, get_args

from verify_contract.contract._document import version_key

Stability = Literal["development", "stable"]
DeprecationReason = Literal["renamed", "obsoleted"]
STABILITIES: tuple[str, ...] = get_args(Stability)
DEPRECATION_REASONS: tuple[str, ...] = get_args(DeprecationReason)


@dataclass(frozen=True)
class Deprecation:
    since: str
    reason: DeprecationReason
    renamed_to: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class FailureKindInfo:
    id: str
    domain: str
    brief: str
    stability: Stability
    added_in: str
    deprecated: Deprecation | None = None

    def deprecated_at(self, version: str) -> bool:
        """Deprecated at contract ``version`` (at or after the version that deprecated it)."""
        return self.deprecated is not None and version_key(self.deprecated.since) <= version_key(version)


ENTRY_KEYS = frozenset(field.name for field in fields(FailureKindInfo))
"""The keys of a registry entry (the deprecation's ``since`` is spelled ``in`` in the registry file)."""
