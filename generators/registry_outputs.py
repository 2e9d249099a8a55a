"""The SPEC.md tables of the registry, the rule catalogue and the budget's rules (documentation, rendered by
``render``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from generators.registry import FailureKindInfo
from generators.render import render


def markdown_table(kinds: list[FailureKindInfo]) -> str:
    return render("docs/registry_table.md.j2", {"kinds": kinds})


def rules_table() -> str:
    """The rule catalogue as a table; the catalogue itself lives in the runtime (verify_contract.findings)."""
    from verify_contract.findings import RULES

    return render("docs/rules_table.md.j2", {"rules": list(RULES.values())})


def budget_rules_table(model: Mapping[str, Any]) -> str:
    """The failure budget's rules (SPEC 11.5) as a table, from a resolved model (the newest)."""
    return render("docs/budget_rules_table.md.j2", {"rules": model["budget_rules"]})


def replace_generated_block(document: str, name: str, content: str) -> str:
    """Replace the text between ``<!-- BEGIN GENERATED: name -->`` and its END marker."""
    pattern = re.compile(rf"(<!-- BEGIN GENERATED: {name} [^\n]*-->\n)(.*?)(<!-- END GENERATED: {name} -->)", re.DOTALL)
    if not pattern.search(document):
        raise RuntimeError(f"SPEC.md has no generated block named {name!r}")
    return pattern.sub(lambda m: m.group(1) + content + m.group(3), document, count=1)
