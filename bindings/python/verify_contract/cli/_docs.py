"""``verify-contract docs --out DIR``: the documentation site, built offline from the resolved model, the vectors
and the repository's SPEC.md (verify_contract.docsite). Nothing is imported until the command runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from verify_contract.cli._exit_codes import EXIT_OK, EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    from verify_contract.docsite import SiteError, build_site

    try:
        pages = build_site(Path(args.out), Path(args.repo))
    except SiteError as refused:
        print(f"verify-contract docs: {refused}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as failed:
        where = f"{failed.filename}: " if failed.filename else ""
        print(f"verify-contract docs: {where}{failed.strerror or failed}", file=sys.stderr)
        return EXIT_USAGE
    print(f"{len(pages)} pages written to {args.out} (open {Path(args.out) / 'index.html'})")
    return EXIT_OK


def register(commands: Any) -> None:
    docs = commands.add_parser(
        "docs",
        help="build the documentation site (static HTML, offline search) from the model, vectors and SPEC.md",
        description="Writes a folder of static pages any host serves (GitHub Pages too) or a browser opens from "
        "disk: every field of every contract version, the failure kinds, the rules with the message check prints, "
        "obligations, failure budgets, the changes between versions, SPEC.md and this command line's help. Needs "
        "a checkout of the repository (SPEC.md, schema/, examples/) and the [docs] extra. Exit codes: 0 built, "
        "2 usage or input error.",
    )
    docs.add_argument("--out", required=True, metavar="DIR", help="where to write the site (replaced if it holds one)")
    docs.add_argument(
        "--repo", default=".", metavar="DIR", help="the repository checkout to read SPEC.md from (default: .)"
    )
    docs.set_defaults(handler=run)
