"""``check``'s flags for inputs in object storage and for the Ray engine, and the run they select.

Kept apart from ``check_command`` so that a local run imports neither fsspec nor Ray: these flags cost nothing
until used (``tests/check/test_check_startup.py``).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from verify_contract.check import BudgetRun, CheckOptions, Progress, Report
    from verify_contract.cli._check_settings import CheckSettings

ENGINES = ("local", "ray")


def add_arguments(check: argparse.ArgumentParser) -> None:
    from verify_contract.check import RAY_BLOCKS_PER_CPU, RAY_MAX_RETRIES  # check's start-up module, not the engine

    check.add_argument(
        "--no-glob",
        action="store_true",
        help="take every INPUT literally: a name with *, ? or [ is never a pattern (without it, a pattern only "
        "when no file or object has that exact name)",
    )
    check.add_argument(
        "--storage-options",
        metavar="JSON",
        help="fsspec storage options for URL inputs (s3://, gs://, ...), a JSON object: endpoint, credentials, "
        'e.g. \'{"endpoint_url": "http://127.0.0.1:9000"}\' (default: the environment\'s)',
    )
    check.add_argument(
        "--engine",
        choices=ENGINES,
        default="local",
        help="local: this machine (with --jobs); ray: tasks on a Ray cluster (pip install 'verify-contract[ray]')",
    )
    check.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="with --engine ray: the cluster (e.g. ray://head:10001, or auto); default: start a local Ray",
    )
    check.add_argument(
        "--ray-blocks",
        type=int,
        metavar="N",
        help="with --engine ray: cut the plain (not gzip) input bytes into about N tasks (default: "
        f"{RAY_BLOCKS_PER_CPU} per CPU)",
    )
    check.add_argument(
        "--ray-retries",
        type=int,
        metavar="N",
        help="with --engine ray: runs of a task whose worker died before its input is reported lost "
        f"(default: {RAY_MAX_RETRIES})",
    )


def storage_options(text: str | None) -> dict[str, Any] | str:
    """The parsed ``--storage-options``, or a one-line error."""
    if text is None:
        return {}
    import json

    try:
        value = json.loads(text)
    except ValueError as error:
        return f"--storage-options is not JSON: {error}"
    if not isinstance(value, dict):
        return "--storage-options must be a JSON object, e.g. '{\"anon\": true}'"
    return value


def run_elsewhere(
    settings: CheckSettings, options: CheckOptions, progress: Progress | None, budget: BudgetRun | None = None
) -> Report | str:
    """The report of ``check`` with storage options or on Ray (``settings.remote.selected()``); a string is a
    usage error (exit 2)."""
    remote = settings.remote
    parsed = storage_options(remote.storage_options)
    if isinstance(parsed, str):
        return parsed
    if remote.engine == "local":
        if remote.ray_address is not None or remote.ray_blocks is not None or remote.ray_retries is not None:
            return "--ray-address, --ray-blocks and --ray-retries need --engine ray"
        from verify_contract.check import check_paths

        return check_paths(
            settings.paths,
            options=options,
            progress=progress,
            storage_options=parsed,
            budget=budget,
            failures_files=settings.failures_files,
            glob=settings.glob,
        )
    if remote.ray_blocks is not None and remote.ray_blocks < 1:
        return "--ray-blocks must be >= 1"
    if remote.ray_retries is not None and remote.ray_retries < 0:
        return "--ray-retries must be >= 0"
    if "-" in settings.paths:
        return "--engine ray reads files and URLs, not stdin (-)"
    import contextlib
    import sys

    from verify_contract.check import RAY_MAX_RETRIES, EngineError, check_paths_ray

    try:
        _quiet_ray_data()
        # Ray's driver prints the cluster's error notices (a worker that died, ...) to stdout, where the report
        # goes: during the run they go to stderr, beside check's own one-line error.
        with contextlib.redirect_stdout(sys.stderr):
            return check_paths_ray(
                settings.paths,
                options,
                storage_options=parsed,
                address=remote.ray_address,
                blocks=remote.ray_blocks,
                max_retries=RAY_MAX_RETRIES if remote.ray_retries is None else remote.ray_retries,
                progress=progress,
                budget=budget,
                failures_files=settings.failures_files,
                glob=settings.glob,
            )
    except EngineError as error:
        return str(error)


def _quiet_ray_data() -> None:
    """The command's stderr is for its own errors: Ray Data's notes on each run (execution plan, progress
    bars off, time taken) are left to its log files."""
    import logging

    try:
        import ray.data  # noqa: F401 (configures its loggers on import; the levels are set after that)
    except ImportError:
        return  # check_paths_ray says how to install Ray
    logging.getLogger("ray.data").setLevel(logging.CRITICAL)  # a lost task is reported by check, in one line


__all__ = ["ENGINES", "add_arguments", "run_elsewhere", "storage_options"]
