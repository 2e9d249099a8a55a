"""What ``check`` prints and writes after a run: the text and JSON reports (messages capped, hints), the exit
code, and the budget's retry list, metrics and plot. Shared by a whole run (``_check``) and ``--follow``
(``_follow``)."""

from __future__ import annotations

from verify_contract._counted import counted
from verify_contract.check import dumps_report_data, precheck_available
from verify_contract.cli._exit_codes import EXIT_BUDGET, EXIT_INVALID, EXIT_OK, EXIT_USAGE
from verify_contract.contract import cap
from verify_contract.generated.contract_names import RULE_JSON_SYNTAX

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from verify_contract.check import CheckOptions, Report
    from verify_contract.cli._check_settings import OutputFiles
    from verify_contract.findings import Finding

# (rule, text in the message) -> what to do about it; printed once per run under the findings.
HINTS: tuple[tuple[str, str, str], ...] = (
    (
        RULE_JSON_SYNTAX,
        "byte order mark",
        "{where} starts with a byte order mark; save it as UTF-8 without one "
        "(e.g. sed -i '{line}s/^\\xEF\\xBB\\xBF//' {path})",
    ),
    (
        RULE_JSON_SYNTAX,
        "invalid UTF-8",
        "a line is not UTF-8; if the file is in another encoding, convert it (iconv -f LATIN1 -t UTF-8 FILE)",
    ),
)


MASKED_HINT_SHARE = 0.10
"""Without a budget, a run in which more than this share of documents is masked says so, once."""


def hints(report: Report) -> list[str]:
    """Each hint whose finding occurs, naming the first such finding's place ({where}, {path}, {line})."""
    found = []
    for rule, text, hint in HINTS:
        first = next((f for f in report.findings if f.finding.rule == rule and text in f.finding.message), None)
        if first is not None:
            line = first.line or 1
            where = first.path if first.line is None else f"{first.path}:{first.line}"
            found.append(hint.format(where=where, path=first.path, line=line))
    if report.budget is None and report.total and report.masked > MASKED_HINT_SHARE * report.total:
        share = report.masked / report.total
        found.append(
            f"{share:.1%} of the documents are masked: bound the share with --max-masked RATE (and --group-by, "
            "--window); see SPEC 11, failure budgets"
        )
    return found


def precheck(options: CheckOptions) -> str:
    """Whether the compiled pre-check ran: "compiled", "off" (--reference-only) or "not built"."""
    if not options.fast:
        return "off"
    return "compiled" if precheck_available() else "not built"


PRECHECK_NOTES = {
    "compiled": "pre-check: compiled",
    "off": "pre-check: off (--reference-only): every line went through the reference validator",
    "not built": "pre-check: not built (no C compiler when installed; set CC and reinstall): every line went "
    "through the reference validator, same report, much slower",
}


def rule_url(docs_url: str | None, rule: str) -> str | None:
    """``check --docs-url BASE``: the rule's entry on the documentation site (``verify-contract docs``), where
    every rule id a finding can carry, the contract's and the failure budget's, has its anchor."""
    return f"{docs_url.rstrip('/')}/rules/#{rule}" if docs_url else None


def finding_line(path: str, line: int | None, finding: Finding, docs_url: str | None = None) -> str:
    """``path:line: severity [rule] message``, and `` (see URL)`` with ``--docs-url``."""
    where = path if line is None else f"{path}:{line}"
    url = rule_url(docs_url, finding.rule)
    return f"{where}: {finding.severity.value} [{finding.rule}] {cap(finding.message)}" + (
        f" (see {url})" if url else ""
    )


def format_text(report: Report, options: CheckOptions, listing: bool = True, docs_url: str | None = None) -> str:
    """Findings, then the summary. Input errors are not repeated here: they go to stderr, once. ``listing``
    False: the summary alone (``--follow`` printed the findings and budget events as they came)."""
    lines = []
    for located in report.findings if listing else ():
        lines.append(finding_line(located.path, located.line, located.finding, docs_url))
    hidden = report.findings_total - len(report.findings)
    if hidden and listing:
        lines.append(f"... {counted(hidden, 'more finding')} not listed (--max-findings {len(report.findings)})")
    kinds = report.failure_kinds()
    legacy = report.legacy_mask()
    unread = f"; {counted(len(report.input_errors), 'input error')} (on stderr)" if report.input_errors else ""
    lines.append(
        f"{counted(report.lines, 'line')} in {counted(report.files, 'input')} "
        f"(contract {report.contract_version}, profile {report.profile}): "
        f"{report.valid:,} valid, {report.invalid:,} invalid, {report.blank:,} blank; {report.masked:,} masked; "
        f"{counted(report.errors, 'error')}, {counted(report.warnings, 'warning')}{unread}"
    )
    lines.append(
        f"failure kinds: {kinds['registered']:,} registered, {kinds['namespaced']:,} namespaced, "
        f"{kinds['unregistered']:,} unregistered; legacy mask: {legacy['used']:,} use it, {legacy['only']:,} only "
        f"there, {legacy['divergent']:,} divergent"
    )
    if report.tally.rules:
        lines.append("by rule: " + ", ".join(f"{rule} {n:,}" for rule, n in sorted(report.tally.rules.items())))
    lines.append(PRECHECK_NOTES[precheck(options)])
    if report.budget is not None:
        from verify_contract.check import budget_text

        lines.extend(budget_text(report.budget, events=listing))
    lines.extend(f"hint: {hint}" for hint in hints(report))
    return "\n".join(lines)


def format_json(report: Report, options: CheckOptions, docs_url: str | None = None) -> str:
    data = report.as_dict()
    for item in data["findings"]:
        item["message"] = cap(item["message"])
        if docs_url:
            item["docs_url"] = rule_url(docs_url, item["rule"])
    data["precheck"] = precheck(options)
    data["hints"] = hints(report)
    return dumps_report_data(data)


def exit_code(report: Report, warnings_as_errors: bool) -> int:
    if report.input_errors:
        return EXIT_USAGE
    if report.budget is not None and report.budget.breached():
        return EXIT_BUDGET
    if report.invalid or (warnings_as_errors and report.warnings):
        return EXIT_INVALID
    return EXIT_OK


def output_error(error: OSError) -> str:
    """A failed output in one line: its path (the user's, ``check._outputs``) and the reason."""
    return f"{error.filename}: {error.strerror}" if error.filename else str(error)


def write_outputs(report: Report, outputs: OutputFiles) -> None:
    """The retry list, the metrics file and the plot, each written whole (a reader never sees half)."""
    run = report.budget
    if run is None:
        return
    if outputs.retry_list:
        from verify_contract.check import write_retry_list

        write_retry_list(run, outputs.retry_list)
    if outputs.metrics_file:
        from verify_contract.check import write_metrics

        write_metrics(report, outputs.metrics_file)
    if outputs.plot:
        from verify_contract.check import write_plot

        write_plot(run, outputs.plot)
