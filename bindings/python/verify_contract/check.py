"""``check``: validate JSON and JSONL files of verify responses and count what was found."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verify_contract.findings import Finding, Severity
from verify_contract.jsonio import parse_json
from verify_contract.mask import MaskTypeError, effective_mask
from verify_contract.validation import validate
from verify_contract.versions import Profile

JSON_SUFFIXES = (".json",)
JSONL_SUFFIXES = (".jsonl", ".ndjson")


class InputError(OSError):
    """A path cannot be read as input (missing, unreadable, unsupported type): a usage problem, exit 2."""


@dataclass(frozen=True)
class LocatedFinding:
    path: str
    line: int | None
    finding: Finding

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, **self.finding.as_dict()}


@dataclass
class Report:
    contract_version: str
    profile: Profile
    files: int = 0
    total: int = 0
    valid: int = 0
    invalid: int = 0
    masked: int = 0
    blank: int = 0
    findings: list[LocatedFinding] = field(default_factory=list)

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.finding.severity is Severity.WARNING)

    def as_dict(self) -> dict[str, Any]:
        return {
            "contract_version": self.contract_version,
            "profile": self.profile,
            "files": self.files,
            "total": self.total,
            "valid": self.valid,
            "invalid": self.invalid,
            "masked": self.masked,
            "blank": self.blank,
            "warnings": self.warnings,
            "findings": [f.as_dict() for f in self.findings],
        }


def _documents(path: Path) -> Iterator[tuple[int | None, bytes]]:
    """(line number or None, raw text) of every document in a file."""
    if path.suffix in JSON_SUFFIXES:
        yield None, path.read_bytes()
        return
    with path.open("rb") as stream:
        yield from enumerate(stream, start=1)


def _check_one(report: Report, name: str, line: int | None, raw: bytes, version: str, profile: Profile) -> None:
    parsed = parse_json(raw)
    if parsed.finding is not None:
        findings = [parsed.finding]
    else:
        findings = validate(parsed.document, version, profile).findings
    report.total += 1
    report.findings.extend(LocatedFinding(name, line, f) for f in findings)
    if any(f.severity is Severity.ERROR for f in findings):
        report.invalid += 1
        return
    report.valid += 1
    # A document valid at an older version that did not type the mask has no mask to count.
    with contextlib.suppress(MaskTypeError):
        report.masked += effective_mask(parsed.document)


def check_paths(paths: Iterable[Path], version: str, profile: Profile) -> Report:
    report = Report(version, profile)
    for path in paths:
        if not path.is_file():
            raise InputError(f"{path}: no such file")
        if path.suffix not in JSON_SUFFIXES + JSONL_SUFFIXES:
            raise InputError(f"{path}: not a .json or .jsonl file")
        report.files += 1
        try:
            for line, raw in _documents(path):
                if line is not None and not raw.strip():
                    report.blank += 1
                    continue
                _check_one(report, str(path), line, raw, version, profile)
        except OSError as error:
            raise InputError(f"{path}: {error.strerror or error}") from error
    return report
