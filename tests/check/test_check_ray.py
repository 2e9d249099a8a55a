"""``check --engine ray`` and ``verify_contract.ray.check_dataset`` on a real local Ray (``ray.init(num_cpus=2)``,
one per module) with moto's S3 server: the report is the local engine's for any partitioning (1, 2 and 7
blocks, ``--jobs 2``), a killed worker's task is retried and counted once, a lost one is named."""

from __future__ import annotations

import io
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from verify_contract.check import CheckOptions, Report, check_bytes, check_paths
from verify_contract.check import _ray as engine  # Ray itself is imported by its functions, when they run
from verify_contract.check import _run as run
from verify_contract.check._inputs import resolve
from verify_contract.check._source import Source
from verify_contract.check._tasks import DocumentTask, RangeTask, StreamTask
from verify_contract.contract._versions import DEFAULT_PROFILE, LATEST_VERSION

from object_store import S3, assert_same_report, corpus_lines, renamed, s3_server, write_corpus

ray = pytest.importorskip("ray", reason="the [ray] extra (the test extra installs it)")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local Ray of two CPUs for the module; its address, for a CLI run to join."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        address = str(ray.get_runtime_context().gcs_address)
        assert address.startswith("127.0.0.1:"), address  # loopback only (tests/conftest.py)
        yield address
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def s3() -> Iterator[S3]:
    with s3_server() as store:
        yield store


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    folder = tmp_path_factory.mktemp("corpus")
    return folder, [str(folder / name) for name in sorted(write_corpus(folder))]


def sources(paths: list[str], storage_options: dict[str, Any] | None = None) -> list[Source]:
    found, errors = resolve(paths, urls=True, storage_options=storage_options)
    assert not errors
    return found


@pytest.mark.parametrize("chunk_bytes", [16, 1 << 20])
def test_range_chunks_cover_every_line_once(chunk_bytes: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Whatever the cuts (in the middle of a line, on a newline, past the end) and the read size (read at the
    # call, as the local engine reads it), the ranges' lines are the file's lines, each once, in order.
    from verify_contract.check import _inputs as inputs

    monkeypatch.setattr(inputs, "CHUNK_BYTES", chunk_bytes)
    data = b"".join(b"%d:" % i + b"x" * (i % 7) + b"\n" for i in range(60)) + b"tail-without-newline"
    whole = list(run._range_chunks(io.BytesIO(data), 0, len(data)))
    assert (len(whole) > 10) == (chunk_bytes < len(data) // 10)  # many small reads, or one
    for parts in range(1, 12):
        for offset in (0, 1, 3):
            size = len(data)
            cuts = sorted({0, size, *((size * i // parts + offset) % size for i in range(1, parts))})
            pieces = [
                b"".join(run._range_chunks(io.BytesIO(data), start, stop)) for start, stop in itertools.pairwise(cuts)
            ]
            assert b"".join(pieces) == data, (parts, offset)
            assert all(not piece or data.startswith(piece) or b"\n" + piece in data for piece in pieces)


def test_any_partitioning_gives_the_local_report(cluster: str, corpus: tuple[Path, list[str]]) -> None:
    _, paths = corpus
    for max_findings in (1000, 40):  # 40: the capped listing is filled across tasks
        options = CheckOptions(max_findings=max_findings)
        expected = check_paths(paths, options=options).as_dict()
        assert expected["findings_total"] > expected["findings_shown"] == max_findings or max_findings == 1000
        jobs = check_paths(paths, options=CheckOptions(max_findings=max_findings, jobs=2)).as_dict()
        assert_same_report(jobs, expected)
        for blocks in (1, 2, 7):
            report = Report(options.version, options.profile)
            tasks = engine.plan(sources(paths), report, blocks, 2)
            ranges = [task for task in tasks if isinstance(task, RangeTask)]
            kinds = {type(task) for task in tasks}
            assert len(ranges) >= blocks and kinds == {DocumentTask, RangeTask, StreamTask}
            got = engine.check_sources_ray(sources(paths), options, blocks=blocks).as_dict()
            assert_same_report(got, expected)


def test_s3_on_ray_gives_the_local_report(cluster: str, s3: S3, corpus: tuple[Path, list[str]]) -> None:
    _, paths = corpus
    urls = [s3.put(f"ray/{Path(path).name}", Path(path).read_bytes()) for path in paths]
    expected = check_paths(paths).as_dict()
    for blocks in (2, 7):
        got = engine.check_sources_ray(sources(urls, s3.options), CheckOptions(), blocks=blocks).as_dict()
        assert_same_report(renamed(got, dict(zip(urls, paths, strict=True))), expected)


def test_cli_engine_ray_joins_a_cluster(cluster: str, corpus: tuple[Path, list[str]]) -> None:
    _, paths = corpus
    base = [sys.executable, "-m", "verify_contract", "check", "--format", "json", *paths]
    local = subprocess.run(base, capture_output=True, text=True, timeout=120)
    on_ray = subprocess.run(
        [*base, "--engine", "ray", "--ray-address", cluster, "--ray-blocks", "7"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert local.returncode == on_ray.returncode == 1, on_ray.stderr
    assert on_ray.stdout == local.stdout  # the very same JSON report, byte for byte
    assert "Traceback" not in on_ray.stderr and "streaming_executor" not in on_ray.stderr  # Ray Data's notes kept off


def test_cli_engine_ray_usage_errors(tmp_path: Path) -> None:
    base = [sys.executable, "-m", "verify_contract", "check", str(tmp_path)]
    for extra, words in (
        (["-", "--engine", "ray"], "not stdin"),
        (["--ray-blocks", "2"], "need --engine ray"),
        (["--engine", "ray", "--ray-retries", "-1"], "--ray-retries must be"),
        (["--engine", "ray", "--ray-blocks", "0"], "--ray-blocks must be"),
    ):
        result = subprocess.run([*base, *extra], capture_output=True, text=True, timeout=60)
        assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr


def slow_corpus(folder: Path) -> str:
    """A file whose two halves take a worker seconds each with every line through the reference (fast=False):
    time to find the worker and kill it."""
    path = folder / "slow.jsonl"
    path.write_bytes(b"\n".join(corpus_lines(7) * 8) + b"\n")
    return str(path)


def _running_check_workers() -> list[int]:
    """Ray worker processes running a check task now (Ray titles a busy worker with its task's name)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                title = handle.read().split(b"\0")[0]
        except OSError:
            continue
        if title.startswith(b"ray::MapBatches(_run_batch)"):
            found.append(int(entry))
    return found


def run_and_kill_one_worker(path: str, max_retries: int) -> tuple[Report, int]:
    """Check ``path`` on Ray in a thread; SIGKILL the first worker seen running a check task."""
    result: dict[str, Any] = {}

    def run() -> None:
        options = CheckOptions(fast=False)
        result["report"] = engine.check_sources_ray(sources([path]), options, blocks=2, max_retries=max_retries)

    thread = threading.Thread(target=run)
    thread.start()
    killed = 0
    deadline = time.monotonic() + 120
    while not killed and thread.is_alive() and time.monotonic() < deadline:
        workers = _running_check_workers()
        if workers:
            os.kill(workers[0], signal.SIGKILL)
            killed = workers[0]
        time.sleep(0.02)
    thread.join(timeout=300)
    assert not thread.is_alive()
    assert killed, "no check task was seen running"
    report: Report = result["report"]
    return report, killed


def _run_and_kill(command: list[str]) -> tuple[subprocess.Popen[str], str, str, int]:
    """Run ``command``; SIGKILL the first Ray worker seen running a check task."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = 0
    deadline = time.monotonic() + 120
    while not killed and process.poll() is None and time.monotonic() < deadline:
        workers = _running_check_workers()
        if workers:
            os.kill(workers[0], signal.SIGKILL)
            killed = workers[0]
        time.sleep(0.02)
    stdout, stderr = process.communicate(timeout=300)
    return process, stdout, stderr, killed


def test_cli_a_lost_block_is_one_line_and_exit_2(cluster: str, tmp_path: Path) -> None:
    # The command joins the module's cluster with no retries; its worker is killed mid-run. Under load the
    # kill can land as the worker finishes its block (its title is a task's until it is not): then nothing is
    # lost, and the run must say so with the whole report (exit 1, every line counted); a few tries, one of
    # which must lose a block.
    path = slow_corpus(tmp_path)
    whole = check_paths([path]).lines
    command = [sys.executable, "-m", "verify_contract", "check", path, "--format", "json", "--reference-only"]
    command += ["--engine", "ray", "--ray-address", cluster, "--ray-blocks", "2", "--ray-retries", "0"]
    for _ in range(3):
        process, stdout, stderr, killed = _run_and_kill(command)
        assert killed, "no check task was seen running"
        assert "Traceback" not in stderr
        report = json.loads(stdout)
        if process.returncode == 1 and not stderr.strip():  # the kill missed the task: the whole report
            assert report["lines"] == whole and not report["input_errors"]
            continue
        assert process.returncode == 2, stderr
        ours = [line for line in stderr.splitlines() if line.startswith("verify-contract check: ")]
        assert len(ours) == 1 and f"{path}: bytes " in ours[0] and "lost (" in ours[0], stderr
        assert stdout.startswith("{"), stdout[:2000]
        assert report["input_errors"] == [ours[0].removeprefix("verify-contract check: ")]
        assert report["lines"] < whole
        return
    pytest.fail("three kills of a running check task lost no block")


def test_a_killed_worker_is_retried_and_counted_once(cluster: str, tmp_path: Path) -> None:
    path = slow_corpus(tmp_path)
    report, _ = run_and_kill_one_worker(path, max_retries=3)
    assert_same_report(report.as_dict(), check_paths([path]).as_dict())


def test_a_lost_block_is_named_and_not_counted(cluster: str, tmp_path: Path) -> None:
    path = slow_corpus(tmp_path)
    report, _ = run_and_kill_one_worker(path, max_retries=0)
    expected = check_paths([path])
    assert len(report.input_errors) == 1, report.input_errors
    error = report.input_errors[0]
    assert error.startswith(f"{path}: bytes ") and "lost" in error and "not after" in error
    # Counted: the lines before the lost range, exactly (the first range, or nothing if that was lost).
    start = int(error.split("bytes ")[1].split("-")[0])
    with open(path, "rb") as handle:
        before = handle.read(start)
    assert report.lines == before.count(b"\n") < expected.lines
    head = check_bytes(before, name=path).as_dict()
    assert_same_report(report.as_dict() | {"files": 1, "input_errors": []}, head | {"files": 1})


def test_check_dataset_verdicts_masks_and_report(cluster: str) -> None:
    lines = [line.rstrip(b"\r") for line in corpus_lines(5) if line.strip()]
    rows = []
    for line in lines:
        try:
            json.loads(line)
        except (ValueError, RecursionError):  # a column of JSON text: lines that are JSON at all
            continue
        rows.append(line.decode("utf-8", "surrogatepass"))
    dataset = ray.data.from_items([{"response": text, "step": n} for n, text in enumerate(rows)], override_num_blocks=4)
    report, checked = engine.check_dataset(dataset, column="response")
    data = "\n".join(rows).encode("utf-8", "surrogatepass")
    expected = check_bytes(data, name="response").as_dict()
    assert_same_report(report.as_dict(), expected)
    out = checked.take_all()
    assert [row["step"] for row in out] == list(range(len(rows)))  # the dataset's order, its columns kept
    for row in out:
        alone = check_bytes(row["response"].encode("utf-8", "surrogatepass"))
        assert row[engine.VERDICT_COLUMN] == (alone.valid == 1)
        assert row[engine.MASK_COLUMN] == ((alone.masked == 1) if alone.valid else None)
        assert len(json.loads(row[engine.FINDINGS_COLUMN])) == alone.findings_total
    assert "_verify_tally" not in checked.schema().names
    assert 0 < report.valid < len(rows) and report.masked


def test_check_dataset_rows_as_documents(cluster: str) -> None:
    rows = [
        {"reward": 1.0, "mask_sample": False},
        {"reward": 0.0, "mask_sample": True},
        {"reward": "1", "mask_sample": False},
    ]
    report, checked = engine.check_dataset(ray.data.from_items(rows))
    assert (report.valid, report.invalid, report.masked) == (2, 1, 1)
    assert [row[engine.VERDICT_COLUMN] for row in checked.take_all()] == [True, True, False]
    assert [f.line for f in report.findings] == [3]


def test_an_unreachable_cluster_is_one_line(corpus: tuple[Path, list[str]]) -> None:
    from object_store import closed_port

    _, paths = corpus
    address = f"127.0.0.1:{closed_port()}"
    command = [sys.executable, "-m", "verify_contract", "check", paths[0], "--engine", "ray", "--ray-address", address]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and not result.stdout
    assert (
        result.stderr.strip() == f"verify-contract check: cannot reach the Ray cluster at {address}: Connection refused"
    )


def test_an_object_gone_is_named(cluster: str, s3: S3, corpus: tuple[Path, list[str]]) -> None:
    # Deleted after planning: its task names the URL and the byte range it could not read. Deleted before:
    # the run names the URL, counts nothing of it, and counts the other input whole.
    _, paths = corpus
    kept = s3.put("gone/e.jsonl", Path(paths[-1]).read_bytes())
    gone = s3.put("gone/a.jsonl", Path(paths[0]).read_bytes())
    tasks = engine.plan(sources([gone], s3.options), Report(LATEST_VERSION, DEFAULT_PROFILE), 3, 2)
    s3.fs.rm(gone.removeprefix("s3://"))
    tally, error = engine.run_on_node(tasks[1], CheckOptions())
    assert tally.lines == 0 and error == f"{gone}: no such object (or bucket) (bytes {tasks[1].start}-{tasks[1].stop})"
    report = engine.check_sources_ray([*sources([kept], s3.options), tasks[0].source], CheckOptions(), blocks=4)
    assert report.input_errors == [f"{gone}: no such object (or bucket)"]
    expected = check_paths([paths[-1]]).as_dict()
    assert_same_report(
        renamed(report.as_dict(), {kept: paths[-1]}), expected | {"files": 2, "input_errors": report.input_errors}
    )


@pytest.mark.toolchain  # the S3 rows' server is compiled from tests/go_s3
def test_the_scale_benchmark_runs_and_its_rows_are_well_formed(cluster: str, tmp_path: Path) -> None:
    # benchmarks/scale.py end to end on a tiny archive, joining this module's Ray; no time is asserted.
    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "scale.json"
    command = [sys.executable, str(root / "benchmarks" / "scale.py"), "--megabytes", "4", "--reps", "1"]
    command += ["--objects", "40", "--latency-objects", "40", "--latency-ms", "5"]
    command += ["--workdir", str(tmp_path), "--json", str(out), "--ray-address", cluster]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=root / "benchmarks")
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    data = json.loads(out.read_text(encoding="utf-8"))
    names = [row["name"] for row in data["rows"]]
    assert "check: s3:// URLs" in names and "check --jobs 2 (in process)" in names
    reader = next(row for row in data["rows"] if row["name"] == "read: s3:// through check's URL reader")
    assert reader["baseline"].startswith("read: concurrent ranged GETs")  # the reader's own overhead
    ahead = [row for row in data["rows"] if "opened ahead" in row["name"]]  # on loopback, and 5 ms a request
    assert [row["latency_seconds"] for row in ahead] == [0.0, 0.005]
    assert all(row["baseline"].startswith("check: many objects, one GET after another") for row in ahead)
    assert any(name.startswith("check --engine ray (") for name in names)
    for row in data["rows"]:
        assert row["seconds"] > 0 and row["megabytes"] > 0 and row["ratio"] > 0, row
    assert data["breakdown"]["tasks"] >= 8 and data["breakdown"]["task_seconds"] > 0
    assert {p["nodes"] for p in data["projection"]} >= {1, 64}


def test_the_readmes_check_dataset_example_runs(cluster: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # README's Ray Data example is fenced ```py, not ```python: the README tests that install the bare wheel
    # (tests/package/test_packages.py) have no Ray. It runs here on the module's Ray (one Ray a module): its own
    # ray.init and ray.shutdown are Ray's, and are left out.
    from markdown_blocks import blocks

    (example,) = [block for block in blocks("README.md", "py") if "check_dataset" in block.code]
    assert "ray.init(" in example.code and "ray.shutdown()" in example.code
    monkeypatch.setattr(ray, "init", lambda *args, **kwargs: None)
    monkeypatch.setattr(ray, "shutdown", lambda: None)
    exec(compile(example.code, f"README.md:{example.line}", "exec"), {"__name__": "readme_example"})


def test_a_corrupt_gzip_member_reads_as_in_one_process(cluster: str, tmp_path: Path) -> None:
    # The lines before the damage are counted, the damage is the same input error, the other inputs whole.
    import gzip

    lines = [json.dumps({"reward": i / 10_000, "metrics": {"note": "x" * 480}}).encode() for i in range(8_000)]
    second = bytearray(gzip.compress(b"\n".join(lines[6_000:]) + b"\n"))
    second[len(second) // 2 : len(second) // 2 + 8] = b"\xff" * 8
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(gzip.compress(b"\n".join(lines[:6_000]) + b"\n") + bytes(second))
    write_corpus(tmp_path)
    # Named twice: each time read up to the damage and reported (an input may repeat).
    paths = [str(broken), *(str(path) for path in sorted(tmp_path.glob("*.jsonl"))), str(broken)]
    expected = check_paths(paths).as_dict()
    assert len(expected["input_errors"]) == 2 and expected["lines"] > 0
    assert_same_report(engine.check_sources_ray(sources(paths), CheckOptions(), blocks=3).as_dict(), expected)


def _storm(folder: Path) -> Path:
    from storm_example import STORM as module

    main_file, _ = module.write(folder)
    return Path(main_file)


BUDGETS: list[dict[str, Any]] = [
    {"max_masked": 0.2, "warn_masked": 0.1},  # the one-pass path (no group, no identity)
    {"max_masked": 0.2, "group_by": ["_ng_environment_server"], "expected": (320, 4), "track_identities": True},
    # groups read by the pre-check (no identity): a top-level path and a nested one, absent from the storm
    {"max_masked": 0.2, "warn_masked": 0.1, "group_by": ["_ng_environment_server", "agent_ref.name"]},
]


@pytest.mark.parametrize("settings", BUDGETS, ids=["ungrouped", "grouped-with-identities", "grouped"])
def test_the_failure_budget_is_the_local_engines_for_any_partitioning(
    cluster: str, tmp_path: Path, settings: dict[str, Any]
) -> None:
    """The storm with its failures file: the whole report, budget section included (events, windows, groups,
    missing rollouts), is the local engine's on 1, 2 and 7 Ray blocks and with --jobs 2."""
    from verify_contract.budget import FailureBudget
    from verify_contract.check import _run as local_check
    from verify_contract.check._budget import BudgetRun, FactSpec

    storm = _storm(tmp_path)

    def budget() -> BudgetRun:
        made = FailureBudget(**settings)
        return BudgetRun(made, FactSpec(made.group_paths, made.track_identities))

    expected = check_paths([str(storm)], budget=budget()).as_dict()
    assert expected["budget"]["verdict"] == "breach" and expected["budget"]["failed"] > 0
    original = local_check.RANGE_BYTES, local_check.SHARE_MIN_BYTES
    local_check.RANGE_BYTES, local_check.SHARE_MIN_BYTES = 30001, 1000  # --jobs 2 really shares the file
    try:
        jobs = check_paths([str(storm)], options=CheckOptions(jobs=2), budget=budget()).as_dict()
    finally:
        local_check.RANGE_BYTES, local_check.SHARE_MIN_BYTES = original
    assert_same_report(jobs, expected)
    for blocks in (1, 2, 7):
        got = engine.check_paths_ray([str(storm)], CheckOptions(), address=cluster, blocks=blocks, budget=budget())
        assert_same_report(got.as_dict(), expected)


def test_cli_budget_on_ray_prints_the_local_report(cluster: str, tmp_path: Path) -> None:
    storm = _storm(tmp_path)
    base = [sys.executable, "-m", "verify_contract", "check", "--format", "json", str(storm), "--max-masked", "0.2"]
    base += ["--group-by", "_ng_environment_server", "--expected", "320x4"]
    local = subprocess.run(base, capture_output=True, text=True, timeout=120)
    on_ray = subprocess.run(
        [*base, "--engine", "ray", "--ray-address", cluster, "--ray-blocks", "7"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert local.returncode == on_ray.returncode == 3, on_ray.stderr  # budget breached
    assert on_ray.stdout == local.stdout


def test_budget_over_s3_is_the_local_budget(s3: S3, tmp_path: Path) -> None:
    storm = _storm(tmp_path)
    url = s3.put("storm/rollouts.jsonl", storm.read_bytes())
    from verify_contract.budget import FailureBudget
    from verify_contract.check._budget import BudgetRun, FactSpec

    def run(path: str, options: dict[str, Any] | None) -> dict[str, Any]:
        made = FailureBudget(max_masked=0.2, warn_masked=0.1)
        budget = BudgetRun(made, FactSpec())
        return check_paths([path], budget=budget, failures_files=False, storage_options=options).as_dict()["budget"]

    remote, local = run(url, s3.options), run(str(storm), None)
    for summary in (remote, local):
        for event in (summary["first_warning"], summary["first_breach"], *summary["events"]):
            event["file"] = "rollouts.jsonl"
        summary["longest_masked_run_at"]["file"] = "rollouts.jsonl"
    assert remote == local and local["verdict"] == "breach"


@pytest.mark.parametrize("form", ["prefix", "object"])
def test_the_failures_file_of_a_run_in_object_storage_is_read_on_ray(
    cluster: str, s3: S3, tmp_path: Path, form: str
) -> None:
    storm = _storm(tmp_path)
    failures = storm.with_name("rollouts_failures.jsonl")
    for path in (storm, failures):
        s3.put(f"ray-run/{path.name}", path.read_bytes())
    url = f"s3://rollouts/ray-run/{storm.name}" if form == "object" else "s3://rollouts/ray-run/"
    base = [sys.executable, "-m", "verify_contract", "check", "--format", "json", "--max-masked", "0.2"]
    local = subprocess.run([*base, str(storm)], capture_output=True, text=True, timeout=120)
    on_ray = subprocess.run(
        [*base, url, "--engine", "ray", "--ray-address", cluster, "--storage-options", json.dumps(s3.options)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert local.returncode == on_ray.returncode == 3, on_ray.stderr  # the breach, not "cannot read" (exit 2)
    got, expected = json.loads(on_ray.stdout)["budget"], json.loads(local.stdout)["budget"]
    failed = {name: counts["rows"] for name, counts in got["failures_files"].items()}
    assert failed == {"s3://rollouts/ray-run/rollouts_failures.jsonl": 36}
    assert got["failures_files"].popitem()[1] == expected["failures_files"].popitem()[1]
    assert (got["rollouts"], got["verdict"]) == (expected["rollouts"], expected["verdict"]) == (1226 + 36, "breach")


def test_joining_ray_keeps_the_commands_sigterm_handler(cluster: str) -> None:
    """ray.init makes SIGTERM a bare sys.exit(15): ``connect`` puts the command's stop (exit 143) back."""
    code = (
        "import signal, sys\n"
        "from verify_contract.cli._stops import installed\n"
        "from verify_contract.ray import connect\n"
        "with installed():\n"
        f"    connect({cluster!r})\n"
        "    print(signal.getsignal(signal.SIGTERM).__qualname__)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "_raise"  # the command's handler, not Ray's sigterm_handler
