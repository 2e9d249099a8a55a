"""``verify-contract probe URL``: judge a running resource server's /verify replies (the probe package)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from verify_contract.cli._exit_codes import EXIT_INVALID, EXIT_OK, EXIT_REFUSED, EXIT_UNREACHABLE, EXIT_USAGE
from verify_contract.contract import CONTRACT_VERSIONS, LATEST_VERSION, PROFILES

DEFAULT_PATH = "/verify"


class UsageError(ValueError):
    pass


def endpoint_of(url: str, path: str) -> str:
    """The verify endpoint: URL itself when it names a path, else URL + ``path``. Only http and https."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"{url!r}: expected an http:// or https:// URL of the server, e.g. http://127.0.0.1:8000")
    if parts.path not in ("", "/"):
        return url
    return url.rstrip("/") + "/" + path.lstrip("/")


def _id_list(text: str, known: tuple[str, ...], option: str) -> tuple[str, ...]:
    if text.strip() == "all":
        return known
    chosen = tuple(part.strip() for part in text.split(",") if part.strip())
    unknown = [name for name in chosen if name not in known]
    if unknown or not chosen:
        raise UsageError(f"{option}: unknown check {unknown[0] if unknown else text!r}; known: {', '.join(known)}, all")
    return chosen


def selected_checks(checks: str | None, exclude_checks: str | None, max_latency: float | None) -> tuple[str, ...]:
    """The checks asked for (``--checks``, ``--exclude-checks``). ``all`` means every check that can run: the
    probe skips, and reports, one that cannot (``probe-latency`` without ``--max-latency``); naming such a
    check is a usage error."""
    from verify_contract.probe import CHECK_IDS, DEFAULT_CHECKS, runnable_checks

    chosen = _id_list(checks, CHECK_IDS, "--checks") if checks else DEFAULT_CHECKS
    if max_latency is not None and not checks and "probe-latency" not in chosen:
        chosen = (*chosen, "probe-latency")  # a latency bound asks for its check
    excluded = _id_list(exclude_checks, CHECK_IDS, "--exclude-checks") if exclude_checks else ()
    chosen = tuple(name for name in CHECK_IDS if name in chosen and name not in excluded)
    named = checks is not None and checks.strip() != "all"
    if named and "probe-latency" in chosen and max_latency is None:
        raise UsageError("probe-latency needs --max-latency SECONDS")
    if not runnable_checks(chosen, max_latency)[0]:
        raise UsageError("no check left to run (--checks and --exclude-checks)")
    return chosen


def _positive(kind: type[int] | type[float]) -> Any:
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not 0 < value <= sys.maxsize:  # NaN too; the largest a count or a deadline can be (Py_ssize_t)
            raise argparse.ArgumentTypeError(f"{text!r} must be greater than 0 and at most {sys.maxsize}")
        return value

    return parse


def run(args: argparse.Namespace) -> int:
    from importlib.util import find_spec

    try:
        # The probe's client for https and proxies (an optional dependency, asked for here), looked up, not
        # imported: a plain http URL goes by the probe's own client, and aiohttp's import is 0.2-0.3 s.
        missing = find_spec("aiohttp") is None
    except ImportError:
        missing = True
    if missing:
        print("verify-contract probe: needs aiohttp: pip install 'verify-contract[probe]'", file=sys.stderr)
        return EXIT_USAGE
    from verify_contract.probe import SECRET_NAMES, CaseError, Settings, file_cases, format_report, probe, replay_cases

    try:
        endpoint = endpoint_of(args.url, args.path)
        checks = selected_checks(args.checks, args.exclude_checks, args.max_latency)
        if args.output is not None:  # tried before the probe runs, not after (check._outputs)
            from verify_contract.check import output_problem

            problem = output_problem(args.output)
            if problem is not None:
                raise UsageError(f"--output {problem}" if problem.startswith("needs") else f"--output: {problem}")
        if args.n is not None and not args.replay:
            raise UsageError("--n samples a --replay file")
        if args.replay:
            cases = replay_cases(Path(args.replay), args.contract_version, args.n, args.seed)
        else:
            cases = file_cases(Path(args.cases))
        if not cases:
            raise UsageError(f"{args.replay or args.cases}: no request in it")
    except (UsageError, CaseError) as error:
        print(f"verify-contract probe: {error}", file=sys.stderr)
        return EXIT_USAGE
    settings = Settings(
        version=args.contract_version,
        profile=args.profile,
        checks=checks,
        max_latency=args.max_latency,
        concurrency=args.concurrency,
        timeout=args.timeout,
        max_requests=args.max_requests,
        max_reply_bytes=args.max_reply_bytes,
        redact=(*SECRET_NAMES, *args.redact),
        warnings_as_errors=args.warnings_as_errors,
    )
    report = probe(endpoint, cases, settings)
    text = format_report(report, args.format, args.max_findings)
    if args.output:
        from verify_contract.check import written_whole

        try:
            with written_whole(args.output) as temporary:
                Path(temporary).write_text(text, encoding="utf-8")
        except OSError as error:
            print(f"verify-contract probe: cannot write {args.output}: {error.strerror}", file=sys.stderr)
            return EXIT_USAGE
    else:
        sys.stdout.write(text)
    if report.unreachable:
        first = report.findings[0].message if report.findings else "no reply"
        print(f"verify-contract probe: {endpoint} could not be reached ({first})", file=sys.stderr)
        return EXIT_UNREACHABLE
    if not report.ok:
        return EXIT_INVALID
    if report.refused_cases:
        print(
            f"verify-contract probe: the server refused {report.refused_cases:,} of the requests "
            "(probe-request-refused): the cases do not fit this server",
            file=sys.stderr,
        )
        return EXIT_REFUSED
    return EXIT_OK


def register(commands: Any) -> None:
    from verify_contract.probe import (  # not _runner's names: the command's help stays light
        CHECKS,
        DEFAULT_CHECKS,
        DEFAULT_CONCURRENCY,
        DEFAULT_LISTED,
        DEFAULT_MAX_REQUESTS,
        DEFAULT_SEED,
        DEFAULT_TIMEOUT,
        MAX_REPLY_BYTES,
        MIN_SECRET_LENGTH,
        REDACTED,
        SECRET_NAMES,
    )

    checks_help = "; ".join(f"{check.id}: {check.summary}" for check in CHECKS)
    probe = commands.add_parser(
        "probe",
        help="send verify requests to a running resource server and judge each reply",
        description="Posts verify requests (from --replay or --cases) to a running server and judges each "
        f"reply by named checks ({checks_help}). Bounds: at most --max-requests requests in all (a case checked "
        "for determinism costs two; a request is sent again, at most twice and counted, only when its "
        "connection dropped before any byte of the reply), --timeout for each whole request (resends and the "
        f"whole body included), --max-reply-bytes of a body after decompression ({MAX_REPLY_BYTES:,} by "
        "default): a reply cut, late or too large is a probe-http-status finding of its case. Request members "
        f"named like {', '.join(SECRET_NAMES)} (any case; --redact adds names) have their values "
        f"({MIN_SECRET_LENGTH} characters or more) replaced by {REDACTED} wherever a reply quotes them. "
        f"Exit codes: {EXIT_OK} every reply follows the contract, {EXIT_INVALID} a reply breaks it (or warns, "
        f"with --warnings-as-errors), {EXIT_USAGE} usage or input error, {EXIT_UNREACHABLE} the server could "
        f"not be reached (no request got an HTTP reply), {EXIT_REFUSED} the server refused requests (4xx: the "
        "cases do not fit it) and no reply broke the contract.",
    )
    probe.add_argument("url", metavar="URL", help="the server (http or https), e.g. http://127.0.0.1:8000")
    probe.add_argument(
        "--path", default=DEFAULT_PATH, help="the verify endpoint, when URL names no path (default: %(default)s)"
    )
    source = probe.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--replay",
        metavar="ROLLOUTS.jsonl",
        help="Gym rollout rows (JSON Lines, gzip too): each row without its reply fields is a verify request; "
        "read as sent, never held",
    )
    source.add_argument(
        "--cases",
        metavar="FILE",
        help='JSON Lines of {"id": NAME, "request": {...}} (id optional): each request is posted as is; read as '
        "sent, never held",
    )
    probe.add_argument(
        "--n", type=_positive(int), metavar="N", help="replay N rows drawn at random (reservoir sampling, --seed)"
    )
    probe.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the seed of --n's draw (default: %(default)s)")
    probe.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help="the profile replies claim; default: gym, since a resource server answers in Gym's wire "
        "format (the request echo comes back with the reward)",
    )
    probe.add_argument(
        "--contract-version", choices=CONTRACT_VERSIONS, default=LATEST_VERSION, help="default: %(default)s"
    )
    probe.add_argument(
        "--checks",
        metavar="IDS",
        help=f"comma-separated check ids to run, or all: every check that can run, the others reported as "
        f"skipped with the reason (default: {','.join(DEFAULT_CHECKS)})",
    )
    probe.add_argument("--exclude-checks", metavar="IDS", help="comma-separated check ids not to run")
    probe.add_argument(
        "--max-latency", type=_positive(float), metavar="SECONDS", help="bound of probe-latency (turns it on)"
    )
    probe.add_argument(
        "--concurrency",
        type=_positive(int),
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help="requests at once, over at most N kept-alive connections (default: %(default)s)",
    )
    probe.add_argument(
        "--timeout",
        type=_positive(float),
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="deadline of each whole request: connecting, sending, resends and reading the reply "
        "(default: %(default)s)",
    )
    probe.add_argument(
        "--max-requests",
        type=_positive(int),
        default=DEFAULT_MAX_REQUESTS,
        metavar="N",
        help="send at most N requests, resends included; the cases beyond are counted as left out "
        "(default: %(default)s)",
    )
    probe.add_argument(
        "--max-reply-bytes",
        type=_positive(int),
        default=MAX_REPLY_BYTES,
        metavar="N",
        help="read at most N bytes of a reply body, after decompression; a longer reply is a finding "
        "(default: %(default)s)",
    )
    probe.add_argument(
        "--redact",
        action="append",
        default=[],
        metavar="NAME",
        help=f"also redact the values of request members named NAME (a shell pattern, any case), besides "
        f"{', '.join(SECRET_NAMES)}; repeatable",
    )
    probe.add_argument("--format", choices=("text", "json", "junit"), default="text")
    probe.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    probe.add_argument(
        "--max-findings",
        type=_positive(int),
        default=DEFAULT_LISTED,
        metavar="N",
        help="text: list at most N findings (identical ones grouped count as one)",
    )
    probe.add_argument("--warnings-as-errors", action="store_true", help="exit 1 on warnings too (strict CI)")
    probe.set_defaults(handler=run)
