#!/usr/bin/env python3
"""The whole-process baselines: a plain Python loop over a JSONL file, printing how many lines it rejects.

    python benchmarks/loops.py orjson FILE                  # orjson.loads on every line: the parse floor
    python benchmarks/loops.py jsonschema-rs SCHEMA FILE    # orjson.loads, then jsonschema-rs on each document

Kept to the bare loop a user would write (no argparse): its start-up is the interpreter's and orjson's.
``parse_loop`` is the one orjson loop: bench.py times it in process too, and the peers plug their
validation into it.
"""

import sys
from collections.abc import Callable, Iterable
from typing import Any

import orjson


def parse_loop(lines: Iterable[bytes], valid: Callable[[Any], bool] | None = None) -> int:
    """Lines rejected: those orjson.loads refuses, and (given ``valid``) the documents it refuses."""
    rejected = 0
    for line in lines:
        try:
            document = orjson.loads(line)
        except orjson.JSONDecodeError:
            rejected += 1
            continue
        if valid is not None and not valid(document):
            rejected += 1
    return rejected


def orjson_loop(path: str) -> int:
    with open(path, "rb") as stream:
        return parse_loop(stream)


def jsonschema_rs_loop(schema_path: str, path: str) -> int:
    import jsonschema_rs

    with open(schema_path, "rb") as stream:
        validator = jsonschema_rs.validator_for(orjson.loads(stream.read()))

    def valid(document: Any) -> bool:
        if validator.is_valid(document):
            return True
        for _ in validator.iter_errors(document):  # a checker reports what is wrong, not only that
            pass
        return False

    with open(path, "rb") as stream:
        return parse_loop(stream, valid)


if __name__ == "__main__":
    if sys.argv[1] == "orjson":
        print(orjson_loop(sys.argv[2]))
    else:
        print(jsonschema_rs_loop(sys.argv[2], sys.argv[3]))
