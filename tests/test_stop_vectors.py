"""The stop vectors (vectors/streams/stops.json, SPEC 11.5): a real ``check --follow`` process reads each stream,
is stopped by the vector's signal once it has read the whole file, and exits as the vector states (3 when the
budget was breached, else 128 plus the signal's number), after printing its summary."""

from __future__ import annotations

import json
import re
import signal
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource
from test_budget_follow import DEADLINE, Follower

STREAMS = Path(__file__).resolve().parents[1] / "vectors" / "streams"
SUITE = json.loads((STREAMS / "stops.json").read_text(encoding="utf-8"))
IDS = [f"{i}-{v['description'][:40]}" for i, v in enumerate(SUITE["vectors"])]

pytestmark = pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="reads a read offset from /proc")


def test_the_stop_vectors_follow_their_schema() -> None:
    registry: Registry[Any] = Registry()
    for name in ("streams.schema.json", "stops.schema.json"):
        schema = json.loads((STREAMS / name).read_text(encoding="utf-8"))
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
    schema = json.loads((STREAMS / "stops.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema, registry=registry).validate(SUITE)
    assert {v["signal"] for v in SUITE["vectors"]} == {"SIGINT", "SIGTERM", "SIGHUP"}
    assert {v["expected"]["exit"] for v in SUITE["vectors"]} == {3, 130, 143, 129}


def _flags(budget: dict[str, Any]) -> list[str]:
    return [part for name, value in budget.items() for part in (f"--{name.replace('_', '-')}", str(value))]


def _read_to(pid: int, path: Path) -> None:
    """Wait until the process's descriptor of ``path`` stands at its end: every line read (a stop is taken at
    the next poll, after the lines read are counted)."""
    size = path.stat().st_size
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                if Path(fd).resolve() == path.resolve():
                    position = re.search(r"^pos:\s+(\d+)$", (Path(f"/proc/{pid}/fdinfo") / fd.name).read_text(), re.M)
                    if position and int(position.group(1)) >= size:
                        return
            except OSError:
                continue
        time.sleep(0.05)
    raise AssertionError(f"{path} not read to its end within {DEADLINE} s")


@pytest.mark.parametrize("vector", SUITE["vectors"], ids=IDS)
def test_a_stopped_follow_exits_as_the_vector_states(vector: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "rollouts.jsonl"
    path.write_text("".join(json.dumps(item["document"]) + "\n" for item in vector["stream"]))
    follower = Follower(str(path), "--format", "json", *_flags(vector["budget"]))
    try:
        _read_to(follower.process.pid, path)
        follower.process.send_signal(getattr(signal, vector["signal"]))
        expected = vector["expected"]
        assert follower.process.wait(timeout=DEADLINE) == expected["exit"]
        summary = json.loads(follower.rest()[-1])["budget"]  # the summary, printed however the run ended
        assert (summary["rollouts"], summary["verdict"]) == (expected["rollouts"], expected["verdict"])
    finally:
        follower.stop()
