"""``verify-contract docs``: the contract's documentation site, built offline into a folder of static files.

    from verify_contract.docsite import build_site
    build_site(Path("site"), repo=Path("."))   # the written pages

Pages per contract version (every field), the failure-kind registry, the rule catalogue (with the message
``check`` prints for each rule's failing vector), profiles and the effective mask, obligations, the failure
budget with the storm's plot, every version-to-version change as ``diff`` reports it, SPEC.md with its
cross-references as links, and the command line's help; an index of all names and an offline search.
Rendered by the bindings' Jinja2 renderer (``codegen.renderer.html_environment``) over the resolved model and
the vectors; needs the ``[docs]`` extra (markdown-it-py, matplotlib). Private modules: ``_content`` (what the
pages say), ``_spec`` (SPEC.md as HTML), ``_build`` (the pages, search index and assets written), ``_errors``.
"""

from __future__ import annotations

from verify_contract.docsite._errors import SiteError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from pathlib import Path


def build_site(out: Path, repo: Path) -> list[str]:
    """Build the site from the repository checkout ``repo`` (SPEC.md, schema/, examples/) into ``out``;
    returns the written pages, relative to ``out``."""
    from verify_contract.docsite._build import build

    return build(out, repo)


__all__ = ["SiteError", "build_site"]
