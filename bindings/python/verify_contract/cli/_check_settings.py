"""``check``'s settings, read once from its parsed flags (``CheckSettings.from_arguments``): typed values that
the run, ``--follow``, the remote engines and the outputs take, so the ``argparse`` namespace stays in the
command's handler (tests/cli/test_cli_settings.py). A setting left out keeps the library's default, which is
stated there only (the budget's window: ``FailureBudget``; its caps: ``_budget_caps``)."""

from __future__ import annotations

from verify_contract.records import FrozenRecord

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from verify_contract.budget import FailureBudget
    from verify_contract.contract import Profile


class BudgetSettings(FrozenRecord):
    """The failure budget's bounds (SPEC 11), as ``FailureBudget`` takes them; None: not given."""

    __slots__ = (  # noqa: RUF023 (the flags' order)
        "max_masked",
        "warn_masked",
        "window",
        "min_samples",
        "max_consecutive_masked",
        "group_by",
        "expected",
    )
    max_masked: float | None
    warn_masked: float | None
    window: int | None
    min_samples: int | None
    max_consecutive_masked: int | None
    group_by: tuple[str, ...]
    expected: int | tuple[int, int] | None

    def __init__(
        self,
        max_masked: float | None = None,
        warn_masked: float | None = None,
        window: int | None = None,
        min_samples: int | None = None,
        max_consecutive_masked: int | None = None,
        group_by: tuple[str, ...] = (),
        expected: int | tuple[int, int] | None = None,
    ) -> None:
        self._freeze(max_masked, warn_masked, window, min_samples, max_consecutive_masked, group_by, expected)

    def failure_budget(self, track_identities: bool = False, track_blocks: bool = False) -> FailureBudget:
        """The ``FailureBudget`` of these bounds (``BudgetError`` for settings it refuses); a bound not given
        takes the library's default."""
        from verify_contract.budget import FailureBudget

        given: dict[str, Any] = {
            name: value for name, value in zip(self.__slots__, self._values(), strict=True) if value is not None
        }
        return FailureBudget(**given, track_identities=track_identities, track_blocks=track_blocks)


class OutputFiles(FrozenRecord):
    """The files a budgeted run writes at its end: the retry list, the Prometheus metrics, the plot."""

    __slots__ = ("retry_list", "metrics_file", "plot")  # noqa: RUF023 (the flags' order)
    retry_list: str | None
    metrics_file: str | None
    plot: str | None

    FLAGS = (("--retry-list", "retry_list"), ("--metrics-file", "metrics_file"), ("--plot", "plot"))
    """Each file's flag and slot, in the flags' order."""

    def __init__(self, retry_list: str | None, metrics_file: str | None, plot: str | None) -> None:
        self._freeze(retry_list, metrics_file, plot)

    def named(self) -> list[tuple[str, str]]:
        """(flag, path) of each file asked for."""
        return [(flag, path) for flag, name in self.FLAGS if (path := getattr(self, name)) is not None]


class RemoteSettings(FrozenRecord):
    """Inputs in object storage (``storage_options``, the JSON text) and the Ray engine's flags."""

    __slots__ = ("storage_options", "engine", "ray_address", "ray_blocks", "ray_retries")  # noqa: RUF023
    storage_options: str | None
    engine: str
    ray_address: str | None
    ray_blocks: int | None
    ray_retries: int | None

    def __init__(
        self,
        storage_options: str | None,
        engine: str,
        ray_address: str | None,
        ray_blocks: int | None,
        ray_retries: int | None,
    ) -> None:
        self._freeze(storage_options, engine, ray_address, ray_blocks, ray_retries)

    def selected(self) -> bool:
        """Whether the run needs ``run_elsewhere``: storage options, or a flag of the Ray engine."""
        return bool(
            self.storage_options is not None
            or self.engine != "local"
            or self.ray_address is not None
            or self.ray_blocks is not None
            or self.ray_retries is not None
        )


class CheckSettings(FrozenRecord):
    """Everything ``verify-contract check`` was asked, typed."""

    __slots__ = (  # noqa: RUF023 (the flags' order)
        "paths",
        "profile",
        "contract_version",
        "format",
        "max_findings",
        "warnings_as_errors",
        "docs_url",
        "jobs",
        "progress",
        "fast",
        "glob",
        "failures_files",
        "budget",
        "outputs",
        "remote",
        "follow",
        "fail_fast",
    )
    paths: list[str]
    profile: Profile
    contract_version: str
    format: str
    max_findings: int
    warnings_as_errors: bool
    docs_url: str | None
    jobs: int
    progress: bool | None
    fast: bool
    glob: bool
    failures_files: bool
    budget: BudgetSettings | None
    outputs: OutputFiles
    remote: RemoteSettings
    follow: bool
    fail_fast: bool

    def __init__(self, *values: Any) -> None:
        self._freeze(*values)

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> CheckSettings:
        """The settings of ``check``'s parsed flags (``cli._check.register``)."""
        group_by = tuple(part for value in args.group_by or [] for part in value.split(",") if part.strip())
        budget = BudgetSettings(
            args.max_masked,
            args.warn_masked,
            args.window,
            args.min_samples,
            args.max_consecutive_masked,
            group_by,
            args.expected,
        )
        outputs = OutputFiles(args.retry_list, args.metrics_file, args.plot)
        # A budget when any of its flags is given: any value but "not given", zero included (the strictest
        # bound, not no bound; ``0 in (None, False)`` is true in Python, so no membership test here).
        flags = (
            args.max_masked,
            args.warn_masked,
            args.window,
            args.min_samples,
            args.max_consecutive_masked,
            args.group_by,
            args.expected,
            *outputs._values(),
        )
        budgeted = args.follow or any(value is not None for value in flags)
        return cls(
            list(args.paths),
            args.profile,
            args.contract_version,
            args.format,
            args.max_findings,
            args.warnings_as_errors,
            args.docs_url,
            args.jobs,
            args.progress,
            not args.reference_only,
            not args.no_glob,
            not args.no_failures_file,
            budget if budgeted else None,
            outputs,
            RemoteSettings(args.storage_options, args.engine, args.ray_address, args.ray_blocks, args.ray_retries),
            args.follow,
            args.fail_fast,
        )

    def failure_budget(self) -> FailureBudget | None:
        """The run's ``FailureBudget`` (None: no budget flag): identities kept for ``--expected`` or a retry
        list, blocks for a plot; ``BudgetError`` for bounds it refuses."""
        if self.budget is None:
            return None
        return self.budget.failure_budget(
            track_identities=self.outputs.retry_list is not None, track_blocks=self.outputs.plot is not None
        )


__all__ = ["BudgetSettings", "CheckSettings", "OutputFiles", "RemoteSettings"]
