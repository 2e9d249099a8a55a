"""Types of the registry data in ``verify_contract.generated.failure_kinds``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Deprecation:
    since: str
    reason: Literal["renamed", "obsoleted"] | str
    renamed_to: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class FailureKindInfo:
    id: str
    domain: str
    brief: str
    stability: Literal["development", "stable"] | str
    added_in: str
    deprecated: Deprecation | None = None
