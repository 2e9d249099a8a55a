"""The compiled pre-check scans a large chunk without the GIL (``check/_fastscan.c``, ``scan_chunk``): another
Python thread (s3fs's event loop downloading the next block, in ``check s3://``) runs during the scan instead of
waiting for it to end. Shown by a thread that stamps the time as it counts: while the scan holds the GIL, no
stamp can fall inside it, away from its ends (the GIL changes hands at most once per switch interval)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from verify_contract.check import _fastpath as fastpath
from verify_contract.contract import resolve_contract

native = fastpath._native
pytestmark = pytest.mark.skipif(native is None, reason="the compiled pre-check is not built")

CORE = resolve_contract("1.2.0", "core")
NO_FIELDS = bytes([0, 0])
"""A field table without a field: every strict-JSON object line is clean by it."""
MARGIN = 0.05
"""Seconds left out at each end of a scan: far more than the switch interval the test sets."""
LONG_ENOUGH = 0.3
"""A scan at least this long leaves a window of LONG_ENOUGH - 2 * MARGIN seconds to count stamps in."""
STAMP_EVERY = 256
"""Iterations of the counting thread per time stamp."""


@pytest.fixture
def short_switch_interval() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    yield
    sys.setswitchinterval(before)


def _stamps_during(scan: Callable[[bytes], object], chunk: bytes) -> tuple[int, float]:
    """How many stamps a counting thread made inside the scan of chunk, away from its ends, and how long the
    scan took."""
    stamps: list[float] = []
    stop = threading.Event()
    running = threading.Event()

    def count() -> None:
        n = 0
        running.set()
        while not stop.is_set():
            n += 1
            if n % STAMP_EVERY == 0:
                stamps.append(time.perf_counter())

    thread = threading.Thread(target=count)
    thread.start()
    try:
        assert running.wait(timeout=30)
        began = time.perf_counter()
        scan(chunk)
        ended = time.perf_counter()
    finally:
        stop.set()
        thread.join(timeout=30)
    assert not thread.is_alive()
    return sum(began + MARGIN < stamp < ended - MARGIN for stamp in stamps), ended - began


def _long_scan(scan: Callable[[bytes], object], line: bytes) -> tuple[int, float]:
    """_stamps_during for a chunk of `line` repeated until its scan takes LONG_ENOUGH (at most 512 MiB)."""
    lines = 1 << 20
    while True:
        inside, took = _stamps_during(scan, line * lines)
        if took >= LONG_ENOUGH or len(line) * lines >= 1 << 29:
            return inside, took
        lines *= 2


@pytest.mark.usefixtures("short_switch_interval")
def test_another_thread_runs_during_a_long_scan() -> None:
    kinds = fastpath.clean_kinds(CORE.model)

    def scan(chunk: bytes) -> object:
        statuses, others = fastpath.scan_with(chunk, NO_FIELDS, kinds)
        assert statuses.count(1) == chunk.count(b"\n") and others == []  # every line clean, as in a small chunk
        return statuses

    inside, took = _long_scan(scan, b'{"a": 1}\n')
    assert took >= LONG_ENOUGH
    assert inside >= 20, f"the other thread made {inside} stamps in a {took:.2f} s scan: the scan holds the GIL"


@pytest.mark.usefixtures("short_switch_interval")
def test_another_thread_runs_during_a_long_budget_scan_with_groups() -> None:
    """scan_budget too, with group paths: the values get their ids without the GIL, and their labels after."""
    grouped = fastpath.group_field_table(CORE, (("env",),))
    assert grouped is not None
    table, fields = grouped
    kinds = fastpath.clean_kinds(CORE.model)
    labelled: list[bytes] = []

    def label(raw: bytes) -> str:
        labelled.append(raw)
        return raw.decode()

    def scan(chunk: bytes) -> object:
        labelled.clear()
        result = native.scan_budget(chunk, table, kinds, b'"failure_reason"', "none", fields, label)
        assert result.groups is not None and len(result.groups.combinations) == 4
        return result

    line = b"".join(b'{"reward": 1.0, "mask_sample": false, "env": "e%d"}\n' % i for i in range(4))
    inside, took = _long_scan(scan, line)
    assert labelled == [b'"e0"', b'"e1"', b'"e2"', b'"e3"']  # once per value, in the order lines show them
    assert took >= LONG_ENOUGH
    assert inside >= 20, f"the other thread made {inside} stamps in a {took:.2f} s scan: the scan holds the GIL"
