"""The repository's own templates (``generators/templates/<language>/``), rendered by ``verify-contract
generate``'s renderer with its filters and the per-language macros every target shares
(``verify_contract/codegen/templates/_shared``). Every file ``python -m generators`` writes that is not
JSON data comes from one of these templates: none is built by joining strings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from verify_contract.codegen.renderer import render_template

TEMPLATES = Path(__file__).resolve().parent / "templates"


def render(template: str, context: dict[str, Any]) -> str:
    """``template`` is ``<language>/<file>.j2`` under generators/templates."""
    language, name = template.split("/", 1)
    return render_template(TEMPLATES / language, name, context)
