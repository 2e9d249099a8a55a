"""``check --metrics-file``: the run as Prometheus text metrics (prometheus-client, the ``[metrics]`` extra).

Labels stay low-cardinality (SPEC 11.6): a group label per ``--group-by`` path (at most ``MAX_DISTINCT``
values, the rest ``(other)``), the failure kind as registered or namespaced, with every unregistered name
collapsed to ``unregistered``; never ``failure_reason``, never an identity. The file is replaced atomically,
so a node exporter's textfile collector never reads half of it.
"""

from __future__ import annotations

import re

from verify_contract.budget import ABSENT_GROUP, NO_KIND, OTHER
from verify_contract.contract import resolve_contract

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from verify_contract.check._report import Report
    from verify_contract.contract import ResolvedModel

PREFIX = "verify_contract"
UNREGISTERED = "unregistered"
"""The label value of every failure kind that is neither registered nor namespaced."""


def _prometheus() -> Any:
    try:
        import prometheus_client
    except ImportError:
        raise ImportError("--metrics-file needs prometheus-client: pip install 'verify-contract[metrics]'") from None
    return prometheus_client


def label_name(path: str) -> str:
    """A group path as a label name: ``agent_ref.name`` -> ``group_agent_ref_name``."""
    return "group_" + re.sub(r"[^a-zA-Z0-9_]", "_", path)


def kind_label(kind: str, model: ResolvedModel) -> str:
    """A failure kind as a label value: registered and namespaced names as they are (in ``model``), others
    collapsed."""
    if kind in (NO_KIND, OTHER):
        return kind
    from verify_contract.reference import ecma_search, registered_kinds

    kinds = model.failure_kinds
    if kinds is None:
        return UNREGISTERED
    if kind in registered_kinds(model):
        return kind
    if kinds["namespace_separator"] in kind and ecma_search(kinds["grammar"], kind):
        return kind
    return UNREGISTERED


class BudgetCollector:
    """Yields the report's counts as metric families at each collection (prometheus-client's custom
    collector protocol): counters are the run's totals so far, gauges its last window. ``model``: the
    report's contract version's (it says which failure kinds are registered)."""

    def __init__(self, report: Report, model: ResolvedModel) -> None:
        self.report = report
        self.model = model

    def describe(self) -> list[Any]:
        return []  # families depend on the run: collected fresh each time

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        report, run = self.report, self.report.budget
        lines = CounterMetricFamily(f"{PREFIX}_check_lines", "Lines checked, by verdict.", labels=["verdict"])
        for verdict, count in (("valid", report.valid), ("invalid", report.invalid), ("blank", report.blank)):
            lines.add_metric([verdict], count)
        yield lines
        findings = CounterMetricFamily(f"{PREFIX}_findings", "Findings of check, by rule id.", labels=["rule"])
        for rule, count in sorted(report.tally.rules.items()):
            findings.add_metric([rule], count)
        yield findings
        if run is None:
            return
        budget = run.budget
        group_labels = [label_name(path) for path in budget.group_names]
        rollouts = CounterMetricFamily(
            f"{PREFIX}_rollouts", "Rollouts, by state (ok, masked, failed) and group.", labels=["state", *group_labels]
        )
        masked = CounterMetricFamily(
            f"{PREFIX}_masked_rollouts",
            "Masked or failed rollouts, by failure kind (unregistered kinds collapsed) and group.",
            labels=["failure_kind", *group_labels],
        )
        window = GaugeMetricFamily(
            f"{PREFIX}_window_masked_ratio",
            "Share of masked or failed rollouts in the last window, by group.",
            labels=group_labels,
        )
        scopes: list[tuple[list[str], Any]] = []
        if budget.group_paths:
            scopes = [(list(group), scope) for group, scope in budget.groups.items()]
        else:
            scopes = [([], budget.total)]
        for values, scope in scopes:
            for state, count in zip(("ok", "masked", "failed"), scope.counts, strict=True):
                rollouts.add_metric([state, *values], count)
            by_label: dict[str, int] = {}
            for kind, count in scope.kinds.items():
                label = kind_label(kind, self.model)
                by_label[label] = by_label.get(label, 0) + count
            for label, count in sorted(by_label.items()):
                masked.add_metric([label, *values], count)
            size = min(budget.window, scope.seen)
            window.add_metric(values, len(scope.bad) / size if size else 0.0)
        yield rollouts
        yield masked
        yield window
        breached = GaugeMetricFamily(f"{PREFIX}_budget_breached", "1 once a failure budget bound was passed.")
        breached.add_metric([], 1.0 if run.breached() else 0.0)
        yield breached
        if run.expected is not None:
            count = budget.missing_count() or 0
            gauge = GaugeMetricFamily(f"{PREFIX}_missing_rollouts", "Expected rollouts not found.")
            gauge.add_metric([], count)
            yield gauge


def _collector(report: Report) -> BudgetCollector:
    # The report names its contract; the metrics' entry points resolve it here, once per write.
    return BudgetCollector(report, resolve_contract(report.contract_version, report.profile).model)


def render(report: Report) -> bytes:
    """The metrics as Prometheus text exposition."""
    prometheus = _prometheus()
    registry = prometheus.CollectorRegistry(auto_describe=False)
    registry.register(_collector(report))
    text: bytes = prometheus.generate_latest(registry)
    return text


def write_metrics(report: Report, path: str) -> None:
    """Replace ``path`` atomically with the run's metrics (``_outputs.written_whole``)."""
    from verify_contract.check._outputs import written_whole

    text = render(report)
    with written_whole(path) as temporary, open(temporary, "wb") as stream:
        stream.write(text)


__all__ = ["ABSENT_GROUP", "BudgetCollector", "kind_label", "label_name", "render", "write_metrics"]
