#!/usr/bin/env python3
"""Scale-out rows of `verify-contract check`: object storage and the Ray engine, side by side in one run.

    pip install -e ".[test]"                  # moto's S3 server, s3fs and ray[data] come with the test extra
    python benchmarks/scale.py                # 1 GB in 8 files (generated once), S3 rows on a quarter of it
    python benchmarks/scale.py --megabytes 256 --reps 2       # a smaller archive
    python benchmarks/bench.py --scale-out    # the same, after bench.py's own rows

Rows (in process, medians of --reps; every report is compared with the local one, field by field):

- S3: reading the files through `check`'s own URL reader from a compiled S3 server on 127.0.0.1 (gofakes3;
  `--s3-server moto` for moto's), against plain concurrent ranged GETs of the same blocks (urllib3 at
  presigned URLs, and s3fs's own client) and reading the same files from the local disk (page cache); then
  `check` of the URLs against `check` of the files.
- Ray: `check --engine ray` on a local Ray of --cpus CPUs (started once, outside the timing) against
  `--jobs 2` and `--jobs 1` in process, on the 8-file archive; where the Ray run's time goes (planning, the
  tasks' own time, the driver's merge, the rest: scheduling and transfer), and from those a projection of
  throughput on N nodes.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import gen_corpus
from measure import DEFAULT_WORKDIR, median, replace_atomically

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the tests' moto helper

FILES = 8
READ_BYTES = 1 << 20
GETS_ROW = "read: concurrent ranged GETs (urllib3, presigned URLs, the reader's blocks and depth)"
S3FS_GETS_ROW = "read: concurrent ranged GETs (s3fs, the reader's blocks and depth)"
READER_ROW = "read: s3:// through check's URL reader"
CHECK_ROW = "check: s3:// URLs"
MANY_ONE_ROW = "check: many objects, one GET after another"


def archive(workdir: Path, megabytes: int) -> list[Path]:
    """FILES files of Gym-like large lines (~16 KB; 5% defective), megabytes in all, generated once."""
    lines = max(4, megabytes * 1_000_000 // 16_500 // FILES)
    paths = []
    for index in range(FILES):
        path = workdir / f"scale-{gen_corpus.fingerprint()}-{lines}-{index}.jsonl"
        if not path.exists():
            rows, _ = gen_corpus.generate(lines, "large", seed=100 + index)
            text = "".join(row + "\n" for row in rows)
            replace_atomically(path, lambda partial, text=text: partial.write_text(text, encoding="utf-8"))
        paths.append(path)
    return paths


def timed(function: Callable[[], Any], reps: int) -> tuple[float, Any]:
    seconds = []
    result = None
    for _ in range(reps):
        began = time.perf_counter()
        result = function()
        seconds.append(time.perf_counter() - began)
    return median(seconds), result


def interleaved(functions: list[Callable[[], Any]], reps: int) -> list[tuple[float, float, Any]]:
    """Each function ``reps`` times, in turns (a, b, a, b, ...), so that a change of the shared machine's load
    falls on both rows of a ratio: per function the median wall seconds, the median CPU seconds of this process,
    and the last result."""
    walls: list[list[float]] = [[] for _ in functions]
    cpus: list[list[float]] = [[] for _ in functions]
    results: list[Any] = [None] * len(functions)
    for _ in range(reps):
        for index, function in enumerate(functions):
            began, spent = time.perf_counter(), time.process_time()
            results[index] = function()
            walls[index].append(time.perf_counter() - began)
            cpus[index].append(time.process_time() - spent)
    return [(median(w), median(c), r) for w, c, r in zip(walls, cpus, results, strict=True)]


def read_all(open_stream: Callable[[], Any]) -> int:
    total = 0
    buffer = bytearray(READ_BYTES)
    with open_stream() as stream:
        while read := stream.readinto(buffer):
            total += read
    return total


def row(rows: list[dict[str, Any]], name: str, seconds: float, megabytes: float, baseline: str = "") -> None:
    base = next((r for r in rows if r["name"] == baseline), None)
    ratio = base["seconds"] / seconds if base else 1.0
    rows.append(
        {
            "name": name,
            "seconds": seconds,
            "megabytes": megabytes,
            "mb_per_s": megabytes / seconds,
            "baseline": baseline,
            "ratio": ratio,
        }
    )
    against = f"{ratio:5.2f}x {baseline}" if baseline else "baseline"
    print(f"| {name:58} | {seconds:8.3f} s | {megabytes / seconds:8.0f} MB/s | {against}")


def same(got: dict[str, Any], expected: dict[str, Any], names: dict[str, str] | None = None) -> None:
    if names:
        from object_store import renamed

        got = renamed(got, names)
    if got != expected:
        raise SystemExit("a report differs from the local one: the benchmark's rows would compare different work")


def cpu_seconds(pid: int) -> float:
    """A process's CPU time so far (user + system), from /proc: what the server spent serving."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def s3_process(server: str, latency: float = 0.0) -> Iterator[tuple[str, dict[str, Any], int]]:
    """An S3 server in a process of its own on 127.0.0.1 (in this one, it would share the GIL with the check it
    serves): its description, the storage options that reach it and its process id. ``go``: gofakes3, compiled
    (tests/go_s3), which outpaces the checker, each request held ``latency`` seconds first (a store's round
    trip); ``moto``: moto's Python server, which on two cores is itself the bottleneck."""
    if server == "go":
        from object_store import go_s3_server

        with go_s3_server(latency) as store:
            assert store.pid is not None
            held = f", {latency * 1e3:.0f} ms a request" if latency else ""
            yield f"gofakes3 at {store.endpoint}, compiled, its own process{held}", store.options, store.pid
        return
    from object_store import CREDENTIALS, closed_port

    port = closed_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise SystemExit("moto's S3 server did not start") from None
                time.sleep(0.1)
        options = {"endpoint_url": f"http://127.0.0.1:{port}", **CREDENTIALS}
        yield f"moto at 127.0.0.1:{port}, its own process", options, process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)


def _ranges(fs: Any, paths: list[str], block: int) -> list[tuple[str, int, int]]:
    return [
        (p, start, min(start + block, size)) for p in paths for size in [fs.size(p)] for start in range(0, size, block)
    ]


def ranged_gets(fs: Any, paths: list[str], block: int, in_flight: int) -> int:
    """A plain concurrent ranged GET of whole objects: every block of every object asked for by urllib3 (another
    HTTP client than the reader's) at a URL presigned by s3fs's client, ``in_flight`` at a time, bytes only
    (no checking, no version compared): what the URL reader is measured against."""
    from concurrent.futures import ThreadPoolExecutor

    import urllib3
    from fsspec.asyn import sync

    async def presign(path: str) -> str:
        await fs.set_session()
        bucket, key, _ = fs.split_path(path)
        url: str = await fs.s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key})
        return url

    urls = {p: sync(fs.loop, presign, p) for p in paths}
    client = urllib3.PoolManager(maxsize=in_flight, retries=False)

    def get(r: tuple[str, int, int]) -> int:
        return len(client.request("GET", urls[r[0]], headers={"Range": f"bytes={r[1]}-{r[2] - 1}"}).data)

    with ThreadPoolExecutor(in_flight) as pool:
        return sum(pool.map(get, _ranges(fs, paths, block)))


def s3fs_ranged_gets(fs: Any, paths: list[str], block: int, in_flight: int) -> int:
    """``ranged_gets`` through s3fs's own client (aiobotocore), the way the reader sent its GETs before."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(in_flight) as pool:
        ranges = _ranges(fs, paths, block)
        return sum(len(data) for data in pool.map(lambda r: fs.cat_file(r[0], start=r[1], end=r[2]), ranges))


def s3_rows(paths: list[Path], reps: int, server: str, rows: list[dict[str, Any]]) -> None:
    import s3fs

    from verify_contract.check import check_paths, clear_caches
    from verify_contract.check._inputs import line_views
    from verify_contract.check._remote import READ_BLOCK_BYTES, RemoteSource, _Reader

    def read_url(url: str) -> int:
        """The object's bytes as ``check`` receives them: ``line_views``'s chunks of whole lines."""
        return sum(len(view) for view in line_views(RemoteSource(url, options)))

    megabytes = sum(p.stat().st_size for p in paths) / 1e6
    with s3_process(server) as (described, storage_options, pid):
        fs = s3fs.S3FileSystem(skip_instance_cache=True, **storage_options)
        if not fs.exists("rollouts"):
            fs.mkdir("rollouts")
        urls = []
        for path in paths:
            fs.pipe(f"rollouts/scale/{path.name}", path.read_bytes())
            urls.append(f"s3://rollouts/scale/{path.name}")
        options = json.dumps(storage_options, sort_keys=True)
        print(f"\n### S3 ({described}) against local files: {len(paths)} files, {megabytes:,.0f} MB")
        seconds, _ = timed(lambda: sum(read_all(lambda p=p: p.open("rb")) for p in paths), reps)
        row(rows, "read: local files (page cache)", seconds, megabytes)
        seconds, _ = timed(lambda: sum(len(fs.cat_file(u)) for u in urls), reps)
        row(rows, "read: one GET per object (s3fs)", seconds, megabytes, "read: local files (page cache)")
        read_url(urls[0])  # the reader's client made once, as the GETs' was
        (s3fs_gets, _, _), (gets, _, _), (reader, _, _) = interleaved(
            [
                lambda: s3fs_ranged_gets(fs, urls, READ_BLOCK_BYTES, _Reader.AHEAD),
                lambda: ranged_gets(fs, urls, READ_BLOCK_BYTES, _Reader.AHEAD),
                lambda: sum(read_url(u) for u in urls),
            ],
            reps,
        )
        row(rows, S3FS_GETS_ROW, s3fs_gets, megabytes, "read: local files (page cache)")
        row(rows, GETS_ROW, gets, megabytes, "read: local files (page cache)")
        row(rows, READER_ROW, reader, megabytes, GETS_ROW)

        def check(names: list[str], **extra: Any) -> Any:
            clear_caches()
            return check_paths(names, **extra)

        served = cpu_seconds(pid)
        (seconds, local_cpu, local), (remote_seconds, spent, remote) = interleaved(
            [lambda: check([str(p) for p in paths]), lambda: check(urls, storage_options=storage_options)], reps
        )
        served = (cpu_seconds(pid) - served) / reps  # the local runs cost the server nothing
        row(rows, "check: local files", seconds, megabytes)
        row(rows, CHECK_ROW, remote_seconds, megabytes, "check: local files")
        same(remote.as_dict(), local.as_dict(), {u: str(p) for u, p in zip(urls, paths, strict=True)})
        # Where the time of a check of the URLs goes, on a machine whose cores the server shares.
        print(
            f"check of the URLs: {remote_seconds:.3f} s a run; CPU of this process {spent:.3f} s (local files "
            f"{local_cpu:.3f} s: CPU ratio {local_cpu / spent:.2f}), of the server {served:.3f} s "
            f"({os.cpu_count()} cores)"
        )
        rows[-1].update(client_cpu_seconds=spent, local_cpu_seconds=local_cpu, server_cpu_seconds=served)


def many_objects_rows(count: int, reps: int, server: str, rows: list[dict[str, Any]], latency: float = 0.0) -> None:
    """``count`` small objects (~1 kB) under one prefix: check of the prefix with none opened ahead (OPEN_AHEAD 0:
    each object fetched when its turn comes, one GET after another, as before) against the default; the server
    holds each request ``latency`` seconds (a store's round trip; none on loopback)."""
    import s3fs

    from verify_contract.check import _remote, check_paths, clear_caches

    line = b'{"reward": 0.5, "mask_sample": false, "_ng_task_index": 7, "_ng_rollout_index": 0}\n'
    with s3_process(server, latency) as (described, storage_options, _):
        fs = s3fs.S3FileSystem(skip_instance_cache=True, **storage_options)
        if not fs.exists("rollouts"):
            fs.mkdir("rollouts")
        fs.pipe({f"rollouts/many/o{index:06d}.jsonl": line * 12 for index in range(count)})
        megabytes = len(line) * 12 * count / 1e6
        print(f"\n### many small objects ({described}): {count:,} objects of {len(line) * 12:,} bytes")
        default = _remote.OPEN_AHEAD
        held = f", {latency * 1e3:.0f} ms a request" if latency else ""

        def check(ahead: int) -> Any:
            _remote.OPEN_AHEAD = ahead
            clear_caches()
            try:
                return check_paths(["s3://rollouts/many/"], storage_options=storage_options)
            finally:
                _remote.OPEN_AHEAD = default

        (seconds, one_cpu, one), (ahead_seconds, ahead_cpu, ahead) = interleaved(
            [lambda: check(0), lambda: check(default)], reps
        )
        baseline = f"{MANY_ONE_ROW}{held}"
        row(rows, baseline, seconds, megabytes)
        row(rows, f"check: {count:,} objects, {default} opened ahead{held}", ahead_seconds, megabytes, baseline)
        rows[-1].update(client_cpu_ms_per_object=ahead_cpu / count * 1e3, objects=count, latency_seconds=latency)
        print(
            f"CPU of this process an object: {ahead_cpu / count * 1e3:.2f} ms opened ahead, "
            f"{one_cpu / count * 1e3:.2f} ms one after another"
        )
        same(ahead.as_dict(), one.as_dict())


def ray_rows(
    paths: list[Path], reps: int, cpus: int, address: str | None, rows: list[dict[str, Any]]
) -> dict[str, Any]:
    import ray

    from verify_contract import ray as engine
    from verify_contract.check import CheckOptions, check_paths, clear_caches
    from verify_contract.check._inputs import resolve

    megabytes = sum(p.stat().st_size for p in paths) / 1e6
    names = [str(p) for p in paths]
    print(f"\n### Ray engine ({cpus} CPUs) against --jobs: {len(paths)} files, {megabytes:,.0f} MB")

    def local(jobs: int) -> Any:
        clear_caches()  # each run learns its memo afresh, as a new process would
        return check_paths(names, options=CheckOptions(jobs=jobs))

    # --jobs first: it forks, and a process must not fork once Ray's threads run in it.
    seconds, expected = timed(lambda: local(1), reps)
    row(rows, "check --jobs 1 (in process)", seconds, megabytes)
    seconds, jobs2 = timed(lambda: local(2), reps)
    row(rows, "check --jobs 2 (in process)", seconds, megabytes, "check --jobs 1 (in process)")
    same(jobs2.as_dict(), expected.as_dict())
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # a local Ray on 127.0.0.1 only
    began = time.perf_counter()
    if address:
        ray.init(address=address, log_to_driver=False, logging_level="ERROR")
    else:
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    start_seconds = time.perf_counter() - began
    try:
        timings: list[dict[str, float]] = []

        def on_ray() -> Any:
            spent: dict[str, float] = {}
            report = engine.check_sources_ray(resolve(names)[0], CheckOptions(), timings=spent)
            timings.append(spent)
            return report

        began = time.perf_counter()
        on_ray()  # the first run starts Ray's worker processes, which import the checker: timed apart
        first = time.perf_counter() - began
        row(rows, f"check --engine ray, first run: workers start ({cpus} CPUs)", first, megabytes)
        timings.clear()
        seconds, report = timed(on_ray, reps)
        row(rows, f"check --engine ray ({cpus} CPUs, local Ray)", seconds, megabytes, "check --jobs 2 (in process)")
        same(report.as_dict(), expected.as_dict())
    finally:
        ray.shutdown()
    spent = sorted(timings, key=lambda t: t["seconds"])[len(timings) // 2]
    parallel = spent["task_seconds"] / cpus  # the tasks' own work, ideally divided among the CPUs
    rest = spent["seconds"] - spent["plan_seconds"] - spent["merge_seconds"] - parallel
    breakdown = {
        "ray_start_seconds": start_seconds,
        "first_run_seconds": first,
        **spent,
        "tasks_over_cpus_seconds": parallel,
        "scheduling_and_transfer_seconds": rest,
        "bytes": megabytes * 1e6,
        "cpus": cpus,
    }
    print(
        f"where the Ray run's {spent['seconds']:.2f} s went: planning {spent['plan_seconds']:.3f} s; "
        f"{spent['tasks']:.0f} tasks, {spent['task_seconds']:.2f} s of their own work ({parallel:.2f} s over "
        f"{cpus} CPUs); merge in the driver {spent['merge_seconds']:.3f} s ({spent['result_bytes'] / 1e3:,.0f} kB "
        f"of results); scheduling and transfer (the rest) {rest:.2f} s. Ray's start, not timed: {start_seconds:.1f} s"
    )
    return breakdown


def projection(breakdown: dict[str, Any], cpus_per_node: int) -> list[dict[str, float]]:
    """Throughput on N nodes from the measured parts: the tasks' work per byte divides among N x CPUs; the
    fixed part (planning, scheduling and transfer, as measured on one node) does not; the merge grows with the
    number of tasks (two per CPU). Assumes each node reads its share of the bytes at least as fast as here."""
    per_byte = breakdown["task_seconds"] / breakdown["bytes"]
    merge_per_task = breakdown["merge_seconds"] / max(breakdown["tasks"], 1)
    fixed = breakdown["plan_seconds"] + breakdown["scheduling_and_transfer_seconds"]
    out = []
    for nodes in (1, 2, 4, 8, 16, 32, 64):
        cpus = nodes * cpus_per_node
        for gigabytes in (1, 16, 256):
            size = gigabytes * 1e9
            tasks = max(2 * cpus, size / (64 << 20))
            seconds = fixed + size * per_byte / cpus + tasks * merge_per_task
            out.append({"nodes": nodes, "gigabytes": gigabytes, "seconds": seconds, "gb_per_s": gigabytes / seconds})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--megabytes", type=int, default=1024, help="the archive's size, in 8 files (default 1024)")
    parser.add_argument("--s3-files", type=int, default=2, help="files of the archive for the S3 rows (default 2)")
    parser.add_argument(
        "--s3-server",
        choices=("go", "moto"),
        default="go",
        help="the S3 server: gofakes3, compiled from tests/go_s3 (needs Go; the default), or moto",
    )
    parser.add_argument("--no-ray", action="store_true", help="the S3 rows only")
    parser.add_argument("--objects", type=int, default=2000, help="small objects for the many-objects rows (0: none)")
    parser.add_argument(
        "--latency-ms",
        type=float,
        default=20.0,
        help="the many-objects rows again with the compiled server holding each request this long, a store's round "
        "trip (default 20; 0: not)",
    )
    parser.add_argument("--latency-objects", type=int, default=500, help="small objects for those rows (default 500)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--ray-address", help="join this Ray cluster instead of starting a local one")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    parser.add_argument("--json", type=Path, help="also write the rows, the breakdown and the projection here")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    paths = archive(args.workdir, args.megabytes)
    print(f"verify-contract check, scale-out rows; load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")
    rows: list[dict[str, Any]] = []
    s3_rows(paths[: args.s3_files], args.reps, args.s3_server, rows)
    if args.objects:
        many_objects_rows(args.objects, args.reps, args.s3_server, rows)
    if args.objects and args.latency_ms and args.s3_server == "go":
        many_objects_rows(args.latency_objects, args.reps, args.s3_server, rows, args.latency_ms / 1e3)
    breakdown: dict[str, Any] = {}
    projected: list[dict[str, float]] = []
    if not args.no_ray:
        breakdown = ray_rows(paths, args.reps, args.cpus, args.ray_address, rows)
        projected = projection(breakdown, args.cpus)
        print(f"\n### projection: throughput on N nodes of {args.cpus} CPUs (GB/s), from the parts measured above")
        print("| nodes | 1 GB | 16 GB | 256 GB |")
        for nodes in sorted({p["nodes"] for p in projected}):
            cells = [f"{p['gb_per_s']:.2f}" for p in projected if p["nodes"] == nodes]
            print(f"| {nodes} | " + " | ".join(cells) + " |")
    ratio = {r["name"]: r["ratio"] for r in rows}
    targets = [
        (CHECK_ROW, 0.7, "check of s3:// URLs against the same files read locally"),
        (READER_ROW, 0.9, "the URL reader against plain concurrent ranged GETs (its own overhead)"),
    ]
    targets += [
        (r["name"], 10.0, f"{r['name']} against one GET after another on the same server")
        for r in rows
        if "opened ahead" in r["name"]
    ]
    for name, target, what in targets:
        print(f"target: {what} at least {target}x: {ratio[name]:.2f}x {'met' if ratio[name] >= target else 'NOT MET'}")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    if args.json:
        data = {"rows": rows, "breakdown": breakdown, "projection": projected}
        args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
