"""The contract's semantic rules (what JSON Schema cannot say) and the helpers they read documents with.

Plain Python over the resolved model: ``check`` runs them on every line it composes without importing the
reference validator (``validation`` re-exports them), so this module imports nothing heavy; regress (ECMA-262
patterns) is imported by the first pattern it evaluates.
"""

from __future__ import annotations

import math
from functools import cache

from verify_contract.contract import ABSENT, Field, ResolvedModel, value_at
from verify_contract.findings import Finding, finding
from verify_contract.generated.contract_names import (
    ROLE_FAILURE_KIND,
    ROLE_LEGACY_MASK,
    ROLE_MASK,
    ROLE_REWARD,
    RULE_FAILURE_KIND_DEPRECATED,
    RULE_FAILURE_KIND_UNREGISTERED,
    RULE_LEGACY_MASK_DIVERGENT,
    RULE_LEGACY_MASK_ONLY,
    RULE_REWARD_NON_FINITE,
)
from verify_contract.reference._schema_messages import json_text

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any

    import regress


@cache
def _ecma_regex(pattern: str) -> regress.Regex:
    import regress

    return regress.Regex(pattern)


def ecma_search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text``, per ECMA-262 (as the ``pattern`` keyword decides)."""
    return _ecma_regex(pattern).find(text) is not None


@cache
def deprecations(model: ResolvedModel) -> dict[str, dict[str, Any]]:
    """Registered kinds deprecated at or before the model's version: each one's ``deprecated`` entry of the
    model (``in``, ``reason``, ``renamed_to``). Read here only; ``validation.deprecated_kinds`` types it."""
    kinds = model.failure_kinds
    registered = kinds["registered"] if kinds else []
    return {kind["id"]: kind["deprecated"] for kind in registered if kind["deprecated"]}


@cache
def registered_kinds(model: ResolvedModel) -> frozenset[str]:
    """The failure kinds registered at the model's version (none before the registry), built once."""
    return model.registered_kinds()


def _dotted(field: Field) -> str:
    return ".".join(field.path)


# The roles semantic_findings reads. A finite reward changes nothing (check relies on that).
SEMANTIC_ROLES = (ROLE_REWARD, ROLE_FAILURE_KIND, ROLE_MASK, ROLE_LEGACY_MASK)


@cache
def role_fields(
    model: ResolvedModel,
) -> tuple[Field | None, Field | None, dict[str, Any] | None, Field | None, Field | None]:
    """The fields playing the roles the semantic rules read in ``model`` (reward, failure kind, with the
    model's failure-kind data, mask, legacy mask), looked up once: ``check`` runs the rules and counts the
    facts on every line it composes."""
    roles = (model.role(role) for role in SEMANTIC_ROLES)
    reward, kind, mask, legacy = roles
    return reward, kind, model.failure_kinds, mask, legacy


def semantic_findings(document: dict[str, Any], model: ResolvedModel) -> list[Finding]:
    """The rules JSON Schema cannot say: finiteness, registry membership, the legacy mask. They read the
    fields playing the SPEC roles (the model's ``roles``), wherever a version declares them."""
    found: list[Finding] = []
    reward_field, kind_field, kinds, mask_field, legacy_field = role_fields(model)
    if reward_field is not None:
        reward = value_at(document, reward_field.path)
        if isinstance(reward, float) and not math.isfinite(reward):
            where = reward_field.pointer
            found.append(finding(RULE_REWARD_NON_FINITE, f"{where}: {json_text(reward)} is not a finite number", where))
    if kind_field is not None and kinds is not None:
        kind = value_at(document, kind_field.path)
        where = kind_field.pointer
        if isinstance(kind, str) and kinds["namespace_separator"] not in kind:
            registered = registered_kinds(model)
            if kind not in registered and _ecma_regex(kinds["grammar"]).find(kind) is not None:
                found.append(
                    finding(
                        RULE_FAILURE_KIND_UNREGISTERED,
                        f"{where}: {json_text(kind)} is not registered at {model.version}; consumers treat it as a "
                        "generic failure (use '<server>:<kind>' for an environment's own kinds)",
                        where,
                    )
                )
            deprecation = deprecations(model).get(kind)
            if deprecation is not None and kind in registered:
                since, renamed_to = deprecation["in"], deprecation.get("renamed_to")
                hint = f"; use {json_text(renamed_to)}" if renamed_to else ""
                message = f"{where}: {json_text(kind)} is deprecated since {since}{hint}"
                found.append(finding(RULE_FAILURE_KIND_DEPRECATED, message, where))
    if mask_field is not None and legacy_field is not None:
        legacy = value_at(document, legacy_field.path)
        if isinstance(legacy, bool):
            top = value_at(document, mask_field.path)
            if top is ABSENT:
                found.append(
                    finding(
                        RULE_LEGACY_MASK_ONLY,
                        f"the mask ({str(legacy).lower()}) is only in the deprecated {_dotted(legacy_field)}; "
                        f"write the top-level {_dotted(mask_field)} too",
                        legacy_field.pointer,
                    )
                )
            elif isinstance(top, bool) and top != legacy:
                found.append(
                    finding(
                        RULE_LEGACY_MASK_DIVERGENT,
                        f"{_dotted(mask_field)} is {str(top).lower()} but {_dotted(legacy_field)} is "
                        f"{str(legacy).lower()}; the effective mask is true",
                        mask_field.pointer,
                    )
                )
    return found
