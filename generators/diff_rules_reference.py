"""docs/diff-rules.md: the reference of `verify-contract diff` rules, generated from the rule table in code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generators import render as templates
from generators.paths import ROOT
from generators.registry import FailureKindInfo
from verify_contract.diff.rules import RULES, Rule

OUTPUT = ROOT / "docs" / "diff-rules.md"


def render(rules: dict[str, Rule]) -> str:
    return templates.render("docs/diff-rules.md.j2", {"rules": list(rules.values())})


def artifacts(
    bundles: dict[str, dict[str, Any]], kinds: list[FailureKindInfo], models: dict[str, dict[str, Any]]
) -> dict[Path, str]:
    del bundles, kinds, models  # the reference depends on the rule table only
    return {OUTPUT: render(RULES)}
