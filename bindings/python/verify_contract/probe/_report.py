"""The probe's report as text, JSON or JUnit XML, each ending with (or holding) the run's statistics."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from verify_contract._counted import counted
from verify_contract.findings import Finding
from verify_contract.probe._checks import REQUEST_CHECKS, breaking, check_of
from verify_contract.probe._requests import DEFAULT_LISTED
from verify_contract.probe._runner import ProbeReport

FORMATS = ("text", "json", "junit")


@cache
def _not_xml() -> re.Pattern[str]:
    """Compiled when a JUnit report is asked for: its ranges take 5-18 ms to compile, on every start-up else."""
    return re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    """XML 1.0 cannot hold every character a message may quote (control characters, lone surrogates)."""
    return _not_xml().sub("\ufffd", text)


FIRST_CASES = 5
"""A group of identical findings names this many of its cases, the first ones sent."""


def _line(item: Finding) -> str:
    pointer = f" {item.pointer}" if item.pointer and item.pointer not in item.message else ""
    return f"{item.severity.value} [{item.rule}]{pointer} {item.message}"


@dataclass
class FindingGroup:
    """Identical findings (same check, rule, severity, pointer and message) of several cases."""

    finding: Finding
    count: int = 0
    cases: list[str] = field(default_factory=list)


def findings_by_case(report: ProbeReport) -> Iterator[tuple[str, Finding]]:
    for result in report.results:
        for item in result.findings:
            yield result.case, item


def grouped(report: ProbeReport) -> list[FindingGroup]:
    """The findings grouped when identical, in the order each first appeared, with their count and first
    cases (as Schemathesis and check-jsonschema report a failure seen many times)."""
    groups: dict[tuple[str, str, str, str, str], FindingGroup] = {}
    for case, item in findings_by_case(report):
        key = (check_of(item), item.rule, item.severity.value, item.pointer, item.message)
        group = groups.setdefault(key, FindingGroup(item))
        group.count += 1
        if len(group.cases) < FIRST_CASES:
            group.cases.append(case)
    return list(groups.values())


def _group_line(group: FindingGroup) -> str:
    if group.count == 1:
        return f"{group.cases[0]}: {_line(group.finding)}"
    more = group.count - len(group.cases)
    cases = ", ".join(group.cases) + (f" and {more:,} more" if more else "")
    return f"{counted(group.count, 'case')} ({cases}): {_line(group.finding)}"


def verdict(report: ProbeReport) -> str:
    if report.unreachable:
        return "the server could not be reached"
    if not report.ok:
        return "BREAKS THE CONTRACT"
    if report.refused_cases:
        return "REQUESTS REFUSED (the input's problem: fix the cases, the server's replies were not judged)"
    return "ok"


def format_text(report: ProbeReport, max_findings: int = DEFAULT_LISTED) -> str:
    groups = grouped(report)
    lines = [_group_line(group) for group in groups[:max_findings]]
    if len(groups) > max_findings:
        lines.append(f"... {counted(len(groups) - max_findings, 'more finding')} (--max-findings)")
    stats = report.statistics()
    latency = stats["latency_ms"]
    resent = f" ({stats['resent']:,} resent)" if stats["resent"] else ""
    lines += [
        f"{counted(stats['cases'], 'case')}, {counted(stats['requests'], 'request')}{resent} to {report.endpoint} "
        f"(contract {report.version}, profile {report.profile}): {counted(stats['replies'], 'reply', 'replies')}, "
        f"{stats['unanswered']:,} unanswered, {stats['left_out']:,} left out; "
        f"{counted(stats['breaking_cases'], 'case')} {'breaks' if stats['breaking_cases'] == 1 else 'break'} the "
        f"contract, {stats['refused_cases']:,} refused by the server: {verdict(report)}",
        f"checks: {', '.join(report.checks)}",
        *(f"skipped: {check} ({reason})" for check, reason in report.skipped.items()),
        f"by check: {_counts(stats['by_check'])}",
        f"by rule: {_counts(stats['by_rule'])}",
        f"failure kinds: {_counts(stats['failure_kinds'])}; masked {stats['masked']:,}",
        "latency ms: " + ", ".join(f"{name} {value if value is not None else '-'}" for name, value in latency.items()),
    ]
    return "\n".join(lines) + "\n"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {count:,}" for name, count in counts.items()) or "none"


def _finding_data(case: str, item: Finding) -> dict[str, Any]:
    data = item.as_dict()
    data.pop("file", None)
    return {"case": case, "check": check_of(item), **data}


def report_data(report: ProbeReport) -> dict[str, Any]:
    return {
        "endpoint": report.endpoint,
        "contract_version": report.version,
        "profile": report.profile,
        "checks": list(report.checks),
        "skipped_checks": dict(report.skipped),
        "ok": report.ok,
        "unreachable": report.unreachable,
        "refused_cases": report.refused_cases,
        "findings": [_finding_data(case, item) for case, item in findings_by_case(report)],
        "groups": [
            {**_finding_data(group.cases[0], group.finding), "count": group.count, "cases": group.cases}
            for group in grouped(report)
        ],
        "statistics": report.statistics(),
    }


def format_json(report: ProbeReport) -> str:
    return json.dumps(report_data(report), indent=2, ensure_ascii=False) + "\n"


def format_junit(report: ProbeReport) -> str:
    """One testcase per case and check (classname the check id, name the case); a breaking finding is a
    <failure>, a refused request an <error> (the case could not be judged), a warning goes to the
    testcase's <system-out>; a check that could not run is one <skipped> testcase saying why."""
    import xml.etree.ElementTree as ElementTree  # here: the text and JSON reports (most runs) do without it

    suites = ElementTree.Element("testsuites", name="verify-contract probe")
    suite = ElementTree.SubElement(suites, "testsuite", name=report.endpoint)
    tests = failures = errors = 0
    for result in report.results:
        seconds = f"{result.latencies[0]:.6f}" if result.latencies else "0"
        for check in report.checks:
            found = [item for item in result.findings if check_of(item) == check]
            case = ElementTree.SubElement(suite, "testcase", classname=check, name=_xml_safe(result.case), time=seconds)
            tests += 1
            text = _xml_safe("\n".join(_line(item) for item in found))
            if found and check in REQUEST_CHECKS:
                errors += 1
                ElementTree.SubElement(case, "error", message=_xml_safe(found[0].message), type=check).text = text
            elif breaking(found, report.warnings_as_errors):
                failures += 1
                failure = ElementTree.SubElement(
                    case, "failure", message=_xml_safe(found[0].message), type=found[0].rule
                )
                failure.text = text
            elif found:
                ElementTree.SubElement(case, "system-out").text = text
    for check, reason in report.skipped.items():
        case = ElementTree.SubElement(suite, "testcase", classname=check, name="(every case)", time="0")
        ElementTree.SubElement(case, "skipped", message=reason)
        tests += 1
    for element in (suite, suites):
        element.set("tests", str(tests))
        element.set("failures", str(failures))
        element.set("errors", str(errors))
    suite.set("skipped", str(len(report.skipped)))
    stats = ElementTree.SubElement(suite, "system-out")
    stats.text = json.dumps(report.statistics())
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def format_report(report: ProbeReport, output_format: str, max_findings: int = DEFAULT_LISTED) -> str:
    if output_format == "json":
        return format_json(report)
    if output_format == "junit":
        return format_junit(report)
    return format_text(report, max_findings)
