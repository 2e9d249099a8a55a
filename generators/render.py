"""The repository's own templates (``generators/templates/``), rendered by ``verify-contract generate``'s
renderer with its filters and the per-language macros every target shares
(``verify_contract/codegen/templates/_shared``). Every file ``python -m generators`` writes that is not
JSON data comes from one of these templates: none is built by joining strings.

Every binding file comes from a binding folder (``<language>/version``, ``<language>/root``,
``python/latest``, ...), rendered exactly as ``verify-contract generate bindings/<language> --templates
generators/templates/<folder> --profile all`` renders it: ``render_binding``. Only the documentation
tables (``docs/``: SPEC.md's registry and rule tables, docs/diff-rules.md) take contexts of their own:
``render``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from verify_contract.codegen.renderer import ALL_PROFILES, Request, render_template
from verify_contract.codegen.renderer import render as render_request

TEMPLATES = Path(__file__).resolve().parent / "templates"


def render(template: str, context: dict[str, Any]) -> str:
    """A documentation table: ``template`` is ``docs/<file>.j2`` under generators/templates."""
    folder, name = template.split("/", 1)
    return render_template(TEMPLATES / folder, name, context)


def render_binding(
    folder: str,
    version: str,
    models: Mapping[str, Mapping[str, Any]],
    bundles: Mapping[str, Mapping[str, Any]],
    **params: str,
) -> dict[str, str]:
    """Every file of the template folder ``folder`` (``<language>/<part>``) for ``version``, every profile
    merged: ``verify-contract generate``'s code path, over the models and bundles computed in this run (so
    a new version needs no install). The header names the target ``bindings/<language>``."""
    request = Request(
        target="bindings/" + folder.split("/", 1)[0],
        version=version,
        profile=ALL_PROFILES,
        params=params,
        templates=TEMPLATES / folder,
        model=models[version],
        schema=bundles[version],
        models=models,
        schemas=bundles,
    )
    return render_request(request)
