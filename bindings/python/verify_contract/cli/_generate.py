"""``verify-contract generate TARGET --out DIR``: bindings for a framework's own code base.

Renders a built-in target (or ``--templates DIR``, the downstream's own Jinja2 templates) over the
resolved model of one contract version and profile. Offline, no repository checkout: the model and the
templates ship in the package. ``--check`` writes nothing and exits 1 with a unified diff when a file is
stale or edited by hand, 0 when every file is current (for the downstream's CI).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from verify_contract.cli._exit_codes import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from verify_contract.codegen.targets import CONSTANTS_LANGUAGES, DEFAULT_PARAMS, TARGETS
from verify_contract.contract import CONTRACT_VERSIONS, DEFAULT_PROFILE, LATEST_VERSION, PROFILES

EPILOG = f"""\
targets: {", ".join(TARGETS)}.
  python-pydantic   pydantic v2 models (strict; unknown keys kept; absent fields never written as null);
                    they import pydantic's MISSING sentinel: pydantic >= 2.14
  python-typeddict  TypedDicts + a strict reader and effective_mask (standard library only)
  python-dataclass  frozen dataclasses with from_dict/to_dict (standard library only)
  typescript        interfaces + parse<Root>(text), encode<Root>(), decode<Root>(), effectiveMask() (no dependencies)
  go                structs + Decode<Root>() and EffectiveMask() (standard library only)
  rust              serde structs + decode() and effective_mask() (serde, serde_json, fancy-regex)
  jsonschema        the bundled single-file JSON Schema of the version and profile
  constants         the failure-kind registry as constants (--lang {"|".join(CONSTANTS_LANGUAGES)})
With --templates DIR, TARGET is any name (written into the headers) and DIR's templates are rendered;
--profile all gives them every profile of the version merged (docs/generate.md).

--identify FILE... prints the target, contract version, profile and model hash each generated file
names in its header (exit 1 if a file has none).

exit codes: 0 written / current, 1 --check found a stale, edited or missing file, 2 usage error."""


def _identify(files: list[str]) -> int:
    from verify_contract.codegen.header import read_file_header

    code = EXIT_OK
    for name in files:
        header = read_file_header(Path(name))
        if header is None:
            print(f"{name}: no verify-contract generated-file header")
            code = EXIT_INVALID
        else:
            print(
                f"{name}: contract {header.contract_version}, profile {header.profile}, "
                f"target {header.target}, model {header.source_hash}"
            )
    return code


def run(args: argparse.Namespace) -> int:
    from verify_contract.codegen.files import check, write
    from verify_contract.codegen.renderer import GenerateError, Request, render

    if args.identify:
        return _identify(args.identify)
    if args.target is None or args.out is None:
        print("verify-contract generate: TARGET and --out are required (or --identify FILE)", file=sys.stderr)
        return EXIT_USAGE
    params: dict[str, Any] = {"name": args.name, "package": args.package, "lang": args.lang}
    templates = Path(args.templates) if args.templates else None
    try:
        profile = _profile(args.contract_version, args.profile)
        files = render(Request(args.target, args.contract_version, profile, params, templates))
    except GenerateError as error:
        print(f"verify-contract generate: {error}", file=sys.stderr)
        return EXIT_USAGE
    out = Path(args.out)
    if args.check:
        result = check(files, out)
        if not result.ok:
            sys.stdout.write(result.diff)
            print(
                f"verify-contract generate --check: {len(result.stale)} stale, {len(result.missing)} missing "
                f"of {len(files)} file(s) in {out}; regenerate with the same command without --check",
                file=sys.stderr,
            )
            return EXIT_INVALID
        print(f"{len(files)} generated file(s) in {out} are current")
        return EXIT_OK
    try:
        written = write(files, out)
    except OSError as error:
        print(f"verify-contract generate: cannot write to {out}: {error}", file=sys.stderr)
        return EXIT_USAGE
    for name in files:
        print(f"{'wrote' if name in written else 'unchanged'}: {out / name}")
    return EXIT_OK


def _profile(version: str, asked: str | None) -> str:
    """The profile asked for, which the version's model must have, else the model's default profile."""
    from verify_contract.codegen.renderer import ALL_PROFILES, GenerateError
    from verify_contract.contract import contract_model

    try:
        model = contract_model(version)
    except ValueError as error:
        raise GenerateError(str(error)) from None
    if asked is not None and asked not in (*model.profiles, ALL_PROFILES):
        raise GenerateError(
            f"contract {version} has no profile {asked!r} (has {', '.join(model.profiles)}; {ALL_PROFILES}: every one)"
        )
    return model.default_profile if asked is None else asked


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "generate",
        help="generate bindings (types, strict decoders, constants) for a framework's own code base",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("target", nargs="?", metavar="TARGET", help="what to generate (see below)")
    parser.add_argument("--out", metavar="DIR", help="directory to write into (created if missing)")
    parser.add_argument(
        "--contract-version",
        default=LATEST_VERSION,
        choices=CONTRACT_VERSIONS,
        metavar="V",
        help=f"contract version (default {LATEST_VERSION}; one of {', '.join(CONTRACT_VERSIONS)})",
    )
    parser.add_argument(
        "--profile",
        metavar="P",
        help=f"profile (default: the model's default; the latest's: {', '.join(PROFILES)}, default {DEFAULT_PROFILE}; "
        "all: every profile merged, for --templates)",
    )
    parser.add_argument("--name", default=DEFAULT_PARAMS["name"], help="module/file base name (default %(default)s)")
    parser.add_argument("--package", default=DEFAULT_PARAMS["package"], help="Go package name (default %(default)s)")
    parser.add_argument(
        "--lang",
        default=DEFAULT_PARAMS["lang"],
        choices=CONSTANTS_LANGUAGES,
        help="language of the constants target (default %(default)s)",
    )
    parser.add_argument("--templates", metavar="DIR", help="render your own Jinja2 templates (*.j2) instead")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 with a diff if a file is stale")
    parser.add_argument("--identify", nargs="+", metavar="FILE", help="name the contract a generated file implements")
    parser.set_defaults(handler=run)
