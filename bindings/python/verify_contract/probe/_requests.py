"""Where the probe's verify requests come from: Gym rollout rows (``--replay``) or a cases file (``--cases``).

A rollout row is the verify reply Gym wrote: the request echo (the request sent to the model and its
response, plus the task's own keys) with the reward and failure fields added. Without the fields a server
answers it is the verify request that produced it.

A cases file is JSON Lines, one case an object: ``{"id": "judge-down", "request": {...}}``; ``id`` is
optional (the line number names the case), ``request`` is the JSON object posted to ``/verify``.
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verify_contract.contract import cap
from verify_contract.probe._checks import reply_fields, request_fields

# The probe's defaults, stated once: the library's (``Settings``, ``replay_cases``, ``format_report``) and the
# command's flags and help read them here, a module light enough for the help.
DEFAULT_CONCURRENCY = 4
"""Requests at once, over at most this many kept-alive connections."""
DEFAULT_TIMEOUT = 30.0
"""Seconds for a whole request: connecting, sending, resends and reading the whole reply."""
DEFAULT_SEED = 0
"""The seed of a replay's random draw (``sample``)."""
DEFAULT_LISTED = 100
"""Findings the text report lists (identical ones grouped count as one)."""
DEFAULT_MAX_REQUESTS = 1000
"""Requests a probe sends at most unless told (--max-requests): traffic is bounded by default."""

CASE_KEYS = frozenset({"id", "request"})


class CaseError(ValueError):
    """A replay or cases file cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class Case:
    id: str
    request: dict[str, Any]


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        with path.open("rb") as raw:
            gzipped = raw.read(2) == b"\x1f\x8b"
        with gzip.open(path, "rt", encoding="utf-8") if gzipped else path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if line.strip():
                    yield number, line
    except OSError as error:
        raise CaseError(f"{path}: cannot read: {error.strerror or error}") from None
    except (UnicodeDecodeError, EOFError, gzip.BadGzipFile) as error:
        raise CaseError(f"{path}: not UTF-8 JSON Lines: {error}") from None


def _object(path: Path, number: int, line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError as error:
        raise CaseError(f"{path}:{number}: not JSON: {cap(str(error), 80)}") from None
    if not isinstance(value, dict):
        raise CaseError(f"{path}:{number}: expected a JSON object, got {type(value).__name__}")
    return value


class CaseFile:
    """The cases of a replay or cases file, read line by line as they are sent: never held whole.

    ``len()`` reads the file once first, checking every line (a bad line is a ``CaseError`` before any
    request is sent) and, for a sample, drawing the line numbers (reservoir sampling with ``seed``, so
    memory holds the sample's numbers only); iterating reads it again, parsing only the lines sent."""

    def __init__(
        self, path: Path, parse: Callable[[int, str], Case], sample: int | None = None, seed: int = DEFAULT_SEED
    ):
        self.path = path
        self._parse = parse
        self._sample = sample
        self._seed = seed
        self._count: int | None = None
        self._drawn: frozenset[int] | None = None

    def _scan(self) -> int:
        if self._count is None:
            rng = random.Random(self._seed)
            drawn: list[int] = []
            seen = 0
            for number, line in _lines(self.path):
                self._parse(number, line)
                seen += 1
                if self._sample is None:
                    continue
                if len(drawn) < self._sample:
                    drawn.append(number)
                else:
                    slot = rng.randrange(seen)
                    if slot < self._sample:
                        drawn[slot] = number
            self._count = seen if self._sample is None else len(drawn)
            self._drawn = None if self._sample is None else frozenset(drawn)
        return self._count

    def __len__(self) -> int:
        return self._scan()

    def __iter__(self) -> Iterator[Case]:
        left = self._scan()
        for number, line in _lines(self.path):
            if left == 0:
                return  # the sample's last line is read: the rest of the file need not be
            if self._drawn is None or number in self._drawn:
                left -= 1
                yield self._parse(number, line)


def replay_cases(path: Path, version: str, sample: int | None = None, seed: int = DEFAULT_SEED) -> CaseFile:
    """The verify requests of a rollout file, in file order; ``sample`` draws that many rows uniformly
    (reservoir sampling with ``seed``, so a large file is read, never held)."""
    answered = set(reply_fields(version))
    needed = request_fields(version)

    def parse(number: int, line: str) -> Case:
        row = _object(path, number, line)
        missing = [name for name in needed if name not in row]
        if missing:
            raise CaseError(f"{path}:{number}: a rollout row needs {', '.join(missing)} (the verify request)")
        return Case(f"{path.name}:{number}", {key: value for key, value in row.items() if key not in answered})

    return CaseFile(path, parse, sample, seed)


def file_cases(path: Path) -> CaseFile:
    """The cases of a cases file (format in the module's docstring), read as they are sent."""

    def parse(number: int, line: str) -> Case:
        entry = _object(path, number, line)
        unknown = sorted(set(entry) - CASE_KEYS)
        if unknown:
            raise CaseError(f"{path}:{number}: unknown key {unknown[0]!r} (a case has {', '.join(sorted(CASE_KEYS))})")
        request = entry.get("request")
        if not isinstance(request, dict):
            raise CaseError(f"{path}:{number}: 'request' must be the JSON object posted to the server")
        name = entry.get("id", f"{path.name}:{number}")
        if not isinstance(name, str) or not name:
            raise CaseError(f"{path}:{number}: 'id' must be a non-empty string")
        return Case(name, request)

    return CaseFile(path, parse)
