"""``verify-contract check PATH...``"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from verify_contract.check import InputError, Report, check_paths
from verify_contract.exit_codes import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from verify_contract.versions import CONTRACT_VERSIONS, DEFAULT_PROFILE, LATEST_VERSION, PROFILES


def format_text(report: Report) -> str:
    lines = []
    for located in report.findings:
        where = located.path if located.line is None else f"{located.path}:{located.line}"
        f = located.finding
        lines.append(f"{where}: {f.severity.value} [{f.rule}] {f.message}")
    lines.append(
        f"{report.total} documents in {report.files} files (contract {report.contract_version}, profile "
        f"{report.profile}): {report.valid} valid, {report.invalid} invalid, {report.masked} masked, "
        f"{report.warnings} warnings, {report.blank} blank lines skipped"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        report = check_paths([Path(p) for p in args.paths], args.contract_version, args.profile)
    except InputError as error:
        print(f"verify-contract check: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        print(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        print(format_text(report))
    return EXIT_INVALID if report.invalid else EXIT_OK


def register(commands: Any) -> None:
    check = commands.add_parser("check", help="validate .json and .jsonl files of verify responses")
    check.add_argument("paths", nargs="+", metavar="PATH")
    check.add_argument("--profile", choices=PROFILES, default=DEFAULT_PROFILE, help="default: %(default)s")
    check.add_argument(
        "--contract-version", choices=CONTRACT_VERSIONS, default=LATEST_VERSION, help="default: %(default)s"
    )
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.set_defaults(handler=run)
