"""The ``verify-contract`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from verify_contract.check import InputError, Report, check_paths
from verify_contract.versions import CONTRACT_VERSIONS, DEFAULT_PROFILE, LATEST_VERSION, PROFILES

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


def _format_text(report: Report) -> str:
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


def _cmd_check(args: argparse.Namespace) -> int:
    try:
        report = check_paths([Path(p) for p in args.paths], args.contract_version, args.profile)
    except InputError as error:
        print(f"verify-contract check: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        print(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        print(_format_text(report))
    return EXIT_INVALID if report.invalid else EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="verify-contract", description="The verify-response contract toolkit.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser("check", help="validate .json and .jsonl files of verify responses")
    check.add_argument("paths", nargs="+", metavar="PATH")
    check.add_argument("--profile", choices=PROFILES, default=DEFAULT_PROFILE, help="default: %(default)s")
    check.add_argument("--contract-version", choices=CONTRACT_VERSIONS, default=LATEST_VERSION, help="default: %(default)s")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.set_defaults(handler=_cmd_check)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
