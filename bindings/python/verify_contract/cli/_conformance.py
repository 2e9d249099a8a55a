"""``verify-contract conformance --producer module:Class`` / ``--consumer module:function``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any

from pydantic import BaseModel

from verify_contract.cli._exit_codes import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from verify_contract.conformance import READS, TAKES, check_consumer, check_producer
from verify_contract.contract import CONTRACT_VERSIONS, DEFAULT_PROFILE, LATEST_VERSION, PROFILES


class TargetError(ValueError):
    pass


def load_target(spec: str) -> Any:
    """``package.module:Name`` (``Name`` may be dotted), imported with the working directory on the path."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise TargetError(f"{spec!r}: expected module:attribute, e.g. my_env.app:MyVerifyResponse")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as error:  # any import-time failure of the user's module is a usage error
        raise TargetError(f"cannot import {module_name}: {type(error).__name__}: {error}") from error
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError as error:
            raise TargetError(f"{module_name} has no attribute {attribute!r}") from error
    return target


def run(args: argparse.Namespace) -> int:
    try:
        if args.producer:
            model = load_target(args.producer)
            if not (isinstance(model, type) and issubclass(model, BaseModel)):
                raise TargetError(f"{args.producer} is not a pydantic model class")
            report = check_producer(model, args.profile, args.contract_version)
        else:
            read = load_target(args.consumer)
            if not callable(read):
                raise TargetError(f"{args.consumer} is not callable")
            report = check_consumer(
                read,
                args.reads,
                invalid=args.invalid,
                name=args.consumer,
                version=args.contract_version,
                profile=args.profile,
                takes=args.takes,
            )
    except TargetError as error:
        print(f"verify-contract conformance: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(report.to_json() if args.format == "json" else report.format_text())
    return EXIT_OK if report.ok else EXIT_INVALID


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "conformance",
        help="run the conformance vectors through a producer's model or a consumer's read function",
        description="Judges the producer or consumer obligations of SPEC 4.1/4.2 and reports by obligation id. "
        "Exit codes: 0 conforms (no MUST broken), 1 does not, 2 usage error (e.g. the target cannot be imported).",
    )
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--producer", metavar="MODULE:CLASS", help="a pydantic model class the producer emits")
    target.add_argument("--consumer", metavar="MODULE:FUNCTION", help="a function reading one document")
    parser.add_argument(
        "--reads", choices=READS, default="mask", help="what the consumer function returns (default: %(default)s)"
    )
    parser.add_argument(
        "--takes",
        choices=TAKES,
        default="document",
        help="what the consumer function is given: the parsed document or the JSON text (default: %(default)s)",
    )
    parser.add_argument(
        "--invalid",
        choices=("refuse", "skip"),
        default="refuse",
        help="consumer must raise on documents the contract rejects (default), or skip them",
    )
    parser.add_argument(
        "--profile", choices=PROFILES, default=DEFAULT_PROFILE, help="profile documents are judged at (%(default)s)"
    )
    parser.add_argument(
        "--contract-version",
        choices=CONTRACT_VERSIONS,
        default=LATEST_VERSION,
        help="version the producer implements or the consumer reads; a consumer also gets earlier versions' documents"
        " (default: %(default)s)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=run)
