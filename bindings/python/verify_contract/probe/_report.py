"""The probe's report as text, JSON or JUnit XML, each ending with (or holding) the run's statistics."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from typing import Any

from verify_contract._counted import counted
from verify_contract.findings import Finding
from verify_contract.probe._checks import breaking, check_of
from verify_contract.probe._runner import ProbeReport

FORMATS = ("text", "json", "junit")
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    """XML 1.0 cannot hold every character a message may quote (control characters, lone surrogates)."""
    return _NOT_XML.sub("\ufffd", text)


def _line(item: Finding) -> str:
    pointer = f" {item.pointer}" if item.pointer and item.pointer not in item.message else ""
    return f"{item.file}: {item.severity.value} [{item.rule}]{pointer} {item.message}"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in counts.items()) or "none"


def format_text(report: ProbeReport, max_findings: int = 100) -> str:
    findings = report.findings
    lines = [_line(item) for item in findings[:max_findings]]
    if len(findings) > max_findings:
        lines.append(f"... {len(findings) - max_findings} more findings (--max-findings)")
    stats = report.statistics()
    latency = stats["latency_ms"]
    verdict = "ok" if report.ok else "BREAKS THE CONTRACT"
    if report.unreachable:
        verdict = "the server could not be reached"
    lines += [
        f"{counted(stats['cases'], 'case')}, {counted(stats['requests'], 'request')} to {report.endpoint} "
        f"(contract {report.version}, profile {report.profile}): {counted(stats['replies'], 'reply', 'replies')}, "
        f"{stats['unanswered']:,} unanswered, {stats['left_out']:,} left out; "
        f"{counted(stats['breaking_cases'], 'case')} {'breaks' if stats['breaking_cases'] == 1 else 'break'} "
        f"the contract: {verdict}",
        f"checks: {', '.join(report.checks)}",
        f"by check: {_counts(stats['by_check'])}",
        f"by rule: {_counts(stats['by_rule'])}",
        f"failure kinds: {_counts(stats['failure_kinds'])}; masked {stats['masked']}",
        "latency ms: " + ", ".join(f"{name} {value if value is not None else '-'}" for name, value in latency.items()),
    ]
    return "\n".join(lines) + "\n"


def report_data(report: ProbeReport) -> dict[str, Any]:
    return {
        "endpoint": report.endpoint,
        "contract_version": report.version,
        "profile": report.profile,
        "checks": list(report.checks),
        "ok": report.ok,
        "unreachable": report.unreachable,
        "findings": [item.as_dict() for item in report.findings],
        "statistics": report.statistics(),
    }


def format_json(report: ProbeReport) -> str:
    return json.dumps(report_data(report), indent=2, ensure_ascii=False) + "\n"


def format_junit(report: ProbeReport) -> str:
    """One testcase per case and check (classname the check id, name the case); a breaking finding is a
    <failure>, a warning goes to the testcase's <system-out>."""
    suites = ElementTree.Element("testsuites", name="verify-contract probe")
    suite = ElementTree.SubElement(suites, "testsuite", name=report.endpoint)
    tests = failures = 0
    for result in report.results:
        seconds = f"{result.latencies[0]:.6f}" if result.latencies else "0"
        for check in report.checks:
            found = [item for item in result.findings if check_of(item) == check]
            case = ElementTree.SubElement(suite, "testcase", classname=check, name=_xml_safe(result.case), time=seconds)
            tests += 1
            if breaking(found, report.warnings_as_errors):
                failures += 1
                first = found[0]
                failure = ElementTree.SubElement(case, "failure", message=_xml_safe(first.message), type=first.rule)
                failure.text = _xml_safe("\n".join(_line(item) for item in found))
            elif found:
                ElementTree.SubElement(case, "system-out").text = _xml_safe("\n".join(_line(item) for item in found))
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suites.set("tests", str(tests))
    suites.set("failures", str(failures))
    stats = ElementTree.SubElement(suite, "system-out")
    stats.text = json.dumps(report.statistics())
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def format_report(report: ProbeReport, output_format: str, max_findings: int = 100) -> str:
    if output_format == "json":
        return format_json(report)
    if output_format == "junit":
        return format_junit(report)
    return format_text(report, max_findings)
