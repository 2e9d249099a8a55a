#!/usr/bin/env python3
"""Does `check --follow` keep up with a run that writes fast? Another process appends a storm at a steady rate;
the follower (`verify-contract check --follow FILE --max-masked ... --group-by ...`, the whole command, default
flags otherwise) checks it as it grows.

    python benchmarks/follow.py                         # 20,000 and 100,000 lines a second, 5 s each
    python benchmarks/follow.py --rates 100000 --seconds 10

Rows, per rate:
- backlog: lines written but not yet checked when the writer stops, and whether it grew over the run (the
  lines behind at each quarter of the run);
- lag: from a line's write to the follower printing its finding (every MARK_EVERY-th line is a contract break
  at a line number the writer notes with the time it was flushed; the follower prints each finding with its line
  number as it checks it): median and p99;
- CPU per line of the follower (its user + system time, from the kernel's rusage) against plain `check` of the
  finished file with the same flags, in the same run (the ratio is the follower's cost of checking as it grows).

Small lines (~190 bytes, the shape of a short verify reply with Gym's identity keys): the rate in lines is what
the follower's per-line and per-poll work must keep up with. The writer flushes every WRITE_EVERY seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

MARK_EVERY = 500
WRITE_EVERY = 0.01
GROUP_BY = "_ng_environment_server"
ENVIRONMENTS = ("browser_env", "math_env")


def line(index: int, chance: random.Random) -> bytes:
    """One reply of a storm: the browser environment's session resets fail 91.6% of its rollouts."""
    task, rollout = divmod(index, 4)
    environment = ENVIRONMENTS[task % 2]
    identity = f'"_ng_environment_server":"{environment}","_ng_task_index":{task},"_ng_rollout_index":{rollout}'
    if index % MARK_EVERY == MARK_EVERY - 1:  # a marker: a contract break the follower prints with its line
        return f'{{"reward":"marker",{identity}}}\n'.encode()
    if environment == "browser_env" and chance.random() < 0.916:
        return f'{{"reward":0.0,"mask_sample":true,"failure_kind":"session_lost",{identity}}}\n'.encode()
    return f'{{"reward":{chance.random():.3f},"mask_sample":false,{identity}}}\n'.encode()


def write(path: Path, rate: int, seconds: float, times: Path) -> None:
    """The writer (a process of its own): ``rate`` lines a second for ``seconds``, flushed every WRITE_EVERY;
    the monotonic time each marker line reached the file, by line number, written to ``times`` at the end."""
    chance = random.Random(rate)
    marks: dict[int, float] = {}
    written = 0
    began = time.monotonic()
    with open(path, "ab", buffering=0) as out:
        while (now := time.monotonic()) - began < seconds:
            due = int((now - began) * rate)
            if due > written:
                out.write(b"".join(line(i, chance) for i in range(written, due)))
                flushed = time.monotonic()
                for index in range(written, due):
                    if index % MARK_EVERY == MARK_EVERY - 1:
                        marks[index + 1] = flushed
                written = due
            time.sleep(max(0.0, WRITE_EVERY - (time.monotonic() - now)))
    times.write_text(json.dumps({"lines": written, "marks": marks, "ended": time.monotonic()}), encoding="utf-8")


def command(path: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "verify_contract",
        "check",
        str(path),
        "--max-masked",
        "0.5",
        "--group-by",
        GROUP_BY,
        *extra,
    ]


def cpu_seconds(process: subprocess.Popen[Any]) -> tuple[int, float]:
    """Waits for the process: (its exit code, its user + system CPU seconds)."""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_utime + usage.ru_stime


def follow_rows(rate: int, seconds: float, workdir: Path) -> dict[str, Any]:
    path = workdir / f"follow-{rate}.jsonl"
    times = workdir / f"follow-{rate}.times.json"
    path.write_bytes(b"")
    follower = subprocess.Popen(
        command(path, "--follow"), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True
    )
    seen: dict[int, float] = {}  # marker line -> when the follower printed its finding

    def read() -> None:
        assert follower.stdout is not None
        prefix = f"{path}:".encode()
        for output in follower.stdout:
            if output.startswith(prefix):
                number = output[len(prefix) :].split(b":", 1)[0]
                if number.isdigit() and int(number) % MARK_EVERY == 0:  # not a budget event's line
                    seen.setdefault(int(number), time.monotonic())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(1.0)  # the follower's start-up (imports) is not the lag of a line
    writer = subprocess.Popen([sys.executable, __file__, "--writer", str(path), str(rate), str(seconds), str(times)])
    behind_at: list[int] = []
    began = time.monotonic()
    for quarter in (1, 2, 3):  # how far behind the follower is at each quarter of the run
        time.sleep(max(0.0, began + seconds * quarter / 4 - time.monotonic()))
        written = sum(1 for _ in open(path, "rb"))  # noqa: SIM115
        checked = max(seen, default=0)
        behind_at.append(max(0, written - checked))
    if writer.wait(timeout=seconds + 60) != 0:
        raise SystemExit("the writer failed")
    record = json.loads(times.read_text(encoding="utf-8"))
    marks = {int(k): v for k, v in record["marks"].items()}
    ended = record["ended"]
    behind_at_end = record["lines"] - max((n for n, t in seen.items() if t <= ended), default=0)
    deadline = time.monotonic() + 60
    while not set(marks) <= set(seen) and time.monotonic() < deadline:
        time.sleep(0.05)
    caught_up = time.monotonic() - ended
    os.killpg(follower.pid, signal.SIGINT)  # the summary, then exit
    _, follow_cpu = cpu_seconds(follower)
    reader.join(timeout=10)
    lags = sorted(seen[n] - marks[n] for n in marks if n in seen)
    if len(lags) != len(marks):
        missing = sorted(set(marks) - set(seen))[:5]
        raise SystemExit(f"the follower printed {len(lags)} of {len(marks)} marker lines (missing: {missing})")
    plain = subprocess.Popen(command(path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, plain_cpu = cpu_seconds(plain)
    lines = record["lines"]
    return {
        "rate": rate,
        "lines": lines,
        "behind_at_quarters": behind_at,
        "behind_at_end": behind_at_end,
        "caught_up_seconds": caught_up,
        "lag_median_ms": statistics.median(lags) * 1e3,
        "lag_p99_ms": lags[min(len(lags) - 1, int(len(lags) * 0.99))] * 1e3,
        "follow_cpu_us_per_line": follow_cpu / lines * 1e6,
        "check_cpu_us_per_line": plain_cpu / lines * 1e6,
        "cpu_ratio": follow_cpu / plain_cpu,
        "bytes": path.stat().st_size,
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--writer":
        _, _, path, rate, seconds, times = sys.argv
        write(Path(path), int(rate), float(seconds), Path(times))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rates", type=int, nargs="+", default=[20_000, 100_000], help="lines a second")
    parser.add_argument("--seconds", type=float, default=5.0, help="how long the writer writes, per rate")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args()
    print(f"check --follow against a steady writer; load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")
    print(
        "| lines/s | lines | behind at 1/4, 1/2, 3/4 | behind at the end | caught up after | lag median | lag p99 "
        "| CPU/line follow | CPU/line check | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    with tempfile.TemporaryDirectory(prefix="verify-contract-follow-") as workdir:
        for rate in args.rates:
            row = follow_rows(rate, args.seconds, Path(workdir))
            rows.append(row)
            print(
                f"| {rate:,} | {row['lines']:,} | {', '.join(f'{b:,}' for b in row['behind_at_quarters'])} "
                f"| {row['behind_at_end']:,} | {row['caught_up_seconds']:.2f} s | {row['lag_median_ms']:.0f} ms "
                f"| {row['lag_p99_ms']:.0f} ms | {row['follow_cpu_us_per_line']:.1f} us "
                f"| {row['check_cpu_us_per_line']:.1f} us | {row['cpu_ratio']:.2f}x |",
                flush=True,
            )
    for row in rows:
        growing = row["behind_at_quarters"] == sorted(row["behind_at_quarters"]) and row["behind_at_quarters"][-1] > (
            row["rate"] * 0.5
        )
        print(
            f"{row['rate']:,} lines/s: backlog {'GROWS' if growing else 'bounded'}; p99 lag "
            f"{'within' if row['lag_p99_ms'] <= 1000 else 'OVER'} 1 s; CPU per line "
            f"{'within' if row['cpu_ratio'] <= 1.5 else 'OVER'} 1.5x plain check"
        )
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
