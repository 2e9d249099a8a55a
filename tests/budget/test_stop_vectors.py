"""The stop vectors (vectors/streams/stops.json, SPEC 11.5): a real ``check --follow`` process reads each stream,
is stopped by the vector's signal once it has read the whole file, and exits as the vector states (3 when the
budget was breached, else 128 plus the signal's number), after printing its summary."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource
from test_budget_follow import DEADLINE, Follower, read_to_end

STREAMS = Path(__file__).resolve().parents[2] / "vectors" / "streams"
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


@pytest.mark.parametrize("vector", SUITE["vectors"], ids=IDS)
def test_a_stopped_follow_exits_as_the_vector_states(vector: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "rollouts.jsonl"
    path.write_text("".join(json.dumps(item["document"]) + "\n" for item in vector["stream"]))
    follower = Follower(str(path), "--format", "json", *_flags(vector["budget"]))
    try:
        read_to_end(follower.process.pid, path)
        follower.process.send_signal(getattr(signal, vector["signal"]))
        expected = vector["expected"]
        assert follower.process.wait(timeout=DEADLINE) == expected["exit"]
        summary = json.loads(follower.rest()[-1])["budget"]  # the summary, printed however the run ended
        assert (summary["rollouts"], summary["verdict"]) == (expected["rollouts"], expected["verdict"])
    finally:
        follower.stop()
