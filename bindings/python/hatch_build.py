"""Build hook: compile the fast pre-check of ``verify-contract check`` (``verify_contract/check/_fastscan.c``).

It is one C file against the CPython API, compiled with the compiler Python itself was built with, or the
one ``CC`` names (``LDSHARED`` and ``CFLAGS`` are honoured too). When no compiler is there, the package
still installs and works: ``check`` then sends every line through the reference validator (same report,
slower), says so in its report ("pre-check: not built") and in ``verify_contract.check._fastpath.available()``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PACKAGE = Path(__file__).parent / "verify_contract" / "check"  # the pre-check lives with the rest of check
SOURCE = PACKAGE / "_fastscan.c"


def compile_command(target: Path, environ: Mapping[str, str] = os.environ) -> list[str]:
    """The command that builds the extension, honouring CC, LDSHARED and CFLAGS as setuptools does.

    ``LDSHARED`` replaces the whole link command; ``CC`` replaces the compiler at the head of Python's own
    ``LDSHARED`` (e.g. ``gcc -shared ...`` becomes ``clang -shared ...``); ``CFLAGS`` is appended.
    """
    linker = environ.get("LDSHARED") or sysconfig.get_config_var("LDSHARED") or "cc -shared"
    python_cc = sysconfig.get_config_var("CC") or "cc"
    if "CC" in environ and "LDSHARED" not in environ and linker.startswith(python_cc):
        linker = environ["CC"] + linker[len(python_cc) :]
    include = sysconfig.get_paths()["include"]
    return [
        *shlex.split(linker),
        *shlex.split(sysconfig.get_config_var("CCSHARED") or "-fPIC"),
        "-O3",
        "-std=c99",
        *shlex.split(environ.get("CFLAGS", "")),
        f"-I{include}",
        str(SOURCE),
        "-o",
        str(target),
    ]


def compile_extension(directory: Path = PACKAGE) -> Path | None:
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    target = directory / f"_fastscan{suffix}"
    if target.exists() and target.stat().st_mtime >= SOURCE.stat().st_mtime:
        return target
    command = compile_command(target)
    try:
        subprocess.run(command, check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as error:
        detail = getattr(error, "stderr", "") or str(error)
        print(
            f"verify-contract: fast pre-check not built ({command[0]}), check will be slower: {detail}", file=sys.stderr
        )
        return None
    return target


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if os.environ.get("VERIFY_CONTRACT_NO_EXTENSION"):
            return
        built = compile_extension()
        if built is None:
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":
            build_data["force_include"][str(built)] = f"verify_contract/check/{built.name}"
