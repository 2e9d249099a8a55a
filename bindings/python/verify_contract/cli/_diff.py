"""``verify-contract diff OLD NEW``: classify a contract change and name the version bump it needs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from verify_contract.cli._exit_codes import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from verify_contract.contract import CONTRACT_VERSIONS
from verify_contract.diff import Report, SideError, diff_sides, load_side, render_markdown, render_text
from verify_contract.findings import Severity
from verify_contract.vectors import VectorFileError

EPILOG = f"""\
OLD and NEW are each a schema file (the files its $refs name are read beside it: a $ref that cannot be
resolved is an error), a version directory (schema/versions/{CONTRACT_VERSIONS[-1]}), a schema/ directory
or a repository root (its latest version), or a git revision of the current repository (main, HEAD~1,
main:schema/versions/{CONTRACT_VERSIONS[0]}), or a file written by `verify-contract generate` (the contract version its
header names, as this package ships it).

exit codes: 0 nothing at or above --fail-on (with --check-bump: the version bump is large enough),
1 a change at or above --fail-on or a forbidden registry change (with --check-bump: the bump is too small or a
forbidden change is present), 2 usage or I/O error."""


def _exit_code(report: Report, check_bump: bool, fail_on: str) -> int:
    if check_bump:
        if report.bump_ok is None:
            print("verify-contract diff: --check-bump needs a version on both sides", file=sys.stderr)
            return EXIT_USAGE
        return EXIT_OK if report.bump_ok else EXIT_INVALID
    return EXIT_INVALID if report.fails(Severity(fail_on)) else EXIT_OK


def _side(spec: str) -> str:
    """A vendored generated file stands for the packaged schema of the contract version its header names."""
    from importlib import resources

    from verify_contract.codegen import read_file_header

    header = read_file_header(Path(spec)) if Path(spec).is_file() else None
    if header is None:
        return spec
    print(
        f"verify-contract diff: {spec} implements contract {header.contract_version} ({header.line()})", file=sys.stderr
    )
    return str(resources.files("verify_contract.generated") / "schemas" / header.contract_version)


def run(args: argparse.Namespace) -> int:
    repo = Path(args.repo) if args.repo else None
    try:
        old, new = load_side(_side(args.old), repo), load_side(_side(args.new), repo)
        vectors_dir = Path(args.vectors) if args.vectors else None
        if vectors_dir is not None and not vectors_dir.is_dir():
            raise SideError(f"--vectors {args.vectors}: not a directory")
        report = diff_sides(old, new, corpus=not args.no_corpus, vectors_dir=vectors_dir)
    except (SideError, VectorFileError, FileNotFoundError) as error:
        print(f"verify-contract diff: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        print(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    elif args.format == "markdown":
        print(render_markdown(report), end="")
    else:
        print(render_text(report))
    return _exit_code(report, args.check_bump, args.fail_on)


def register(commands: Any) -> None:
    diff = commands.add_parser(
        "diff",
        help="classify the changes between two contract versions",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    diff.add_argument("old", metavar="OLD")
    diff.add_argument("new", metavar="NEW")
    diff.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    diff.add_argument(
        "--fail-on",
        choices=[s.value for s in Severity],
        default=Severity.ERROR.value,
        help="exit 1 when a change has this severity or worse (default: %(default)s)",
    )
    diff.add_argument(
        "--check-bump",
        action="store_true",
        help="judge the version bump instead: exit 1 only if it is smaller than the changes require",
    )
    diff.add_argument("--repo", help="git repository for revisions (default: the one around the current directory)")
    diff.add_argument(
        "--vectors",
        help="conformance vectors directory (default: each side's own vectors/, else the bundled corpus)",
    )
    diff.add_argument("--no-corpus", action="store_true", help="skip the conformance-corpus effect")
    diff.set_defaults(handler=run)
