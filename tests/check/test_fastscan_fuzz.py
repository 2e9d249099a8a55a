"""Sanitizer fuzzing of the compiled pre-check, CI-sized (tests/fuzz/fastscan; the long run: ``make fuzz-c``).

The libFuzzer target (ASan + UBSan, no Python) runs a bounded number of executions from the seeds, then
every input of the corpus it grew is replayed through the Python module against the reference.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fuzz.fastscan.harness import COMBOS, HarnessError, build, corpus_files, fuzz, replay, seed_lines, write_seeds
from languages import REQUIRE_ALL

from verify_contract.check import _fastpath as fastpath
from verify_contract.check import _lines as check_lines

CI_RUNS = 200_000


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("fastscan-fuzz")
    try:
        build(directory)
    except HarnessError as error:
        if REQUIRE_ALL:  # CI installs clang and libclang-rt-14-dev (.ci/run)
            pytest.fail(str(error))
        pytest.skip(str(error))
    write_seeds(directory / "seeds")
    return directory


def test_short_sanitizer_run_finds_nothing_and_the_corpus_agrees_with_the_reference(workdir: Path) -> None:
    run = fuzz(workdir / "fuzz_fastscan", workdir, runs=CI_RUNS)
    assert not run.found, run.log[-6000:]
    assert run.stats["number_of_executed_units"] >= CI_RUNS, run.log[-2000:]
    assert run.stats["new_units_added"] > 0  # coverage guidance reaches the scanner
    grown = list((workdir / "corpus").iterdir())
    assert grown
    replayed = replay(corpus_files(workdir))
    assert replayed.inputs == len(grown) + len(seed_lines())
    assert replayed.problems == [], "\n".join(replayed.problems[:20])


def _replay_with_keys(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, lines: list[bytes], rewrite: Callable[[bytes], bytes]
) -> list[str]:
    """The replay's problems on these lines when the pre-check's memo keys pass through ``rewrite`` (the
    lines replay cleanly first, so every problem is the rewritten keys')."""
    native = fastpath._native
    assert native is not None

    def wrong_scan(chunk: bytes, table: bytes, kinds: bytes) -> tuple[bytes, list[fastpath.Other]]:
        statuses, others = native.scan(chunk, table, kinds)
        return statuses, [(i, s, e, None if k is None else rewrite(k)) for i, s, e, k in others]

    paths = []
    for index, line in enumerate(lines):
        paths.append(tmp_path / f"input-{index}")
        paths[-1].write_bytes(line + b"\n")
    assert replay(paths).problems == []
    monkeypatch.setattr(fastpath, "scan_with", wrong_scan)
    try:
        return replay(paths).problems
    finally:
        check_lines.clear_caches()  # the wrong keys' outcomes must not outlive the test


def test_the_replay_catches_a_wrong_memo_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A pre-check that named the wrong defect (every non-finite token keyed as a duplicate name) must fail it.
    lines = [b'{"reward": NaN}', b'{"reward": 1, "x": [1, -Infinity]}', b'{"reward": 1}']
    problems = _replay_with_keys(monkeypatch, tmp_path, lines, lambda k: b"Dreward" if k[:1] == b"N" else k)
    assert any("text-event key" in problem for problem in problems), problems
    assert any("differs from --reference-only" in problem for problem in problems), problems


def test_the_replay_catches_a_text_key_with_a_wrong_column(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A pre-check that put a syntax defect one code point too far right must fail the replay.
    def shifted(key: bytes) -> bytes:
        if key[:1] != b"S":
            return key
        tag, column, *code = key.split(b":")
        return b":".join([tag, str(int(column) + 1).encode(), *code])

    lines = [b'{"reward": 1,', b'{"reward": "\xc3\xa9\\q"}', b'{"reward": 1}']
    problems = _replay_with_keys(monkeypatch, tmp_path, lines, shifted)
    assert sum("text-event key b'S" in problem for problem in problems) >= 2 * len(COMBOS), problems
