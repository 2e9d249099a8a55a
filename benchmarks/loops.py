#!/usr/bin/env python3
"""The whole-process baselines: a plain Python loop over a JSONL file, printing how many lines it rejects.

    python benchmarks/loops.py orjson FILE                  # orjson.loads on every line: the parse floor
    python benchmarks/loops.py jsonschema-rs SCHEMA FILE    # orjson.loads, then jsonschema-rs on each document

Kept to the bare loop a user would write (no argparse): its start-up is the interpreter's and orjson's.
"""

import sys

import orjson


def orjson_loop(path: str) -> int:
    rejected = 0
    with open(path, "rb") as stream:
        for line in stream:
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError:
                rejected += 1
    return rejected


def jsonschema_rs_loop(schema_path: str, path: str) -> int:
    import jsonschema_rs

    with open(schema_path, "rb") as stream:
        validator = jsonschema_rs.validator_for(orjson.loads(stream.read()))
    rejected = 0
    with open(path, "rb") as stream:
        for line in stream:
            try:
                document = orjson.loads(line)
            except orjson.JSONDecodeError:
                rejected += 1
                continue
            if not validator.is_valid(document):
                rejected += 1
                for _ in validator.iter_errors(document):  # a checker reports what is wrong, not only that
                    pass
    return rejected


if __name__ == "__main__":
    if sys.argv[1] == "orjson":
        print(orjson_loop(sys.argv[2]))
    else:
        print(jsonschema_rs_loop(sys.argv[2], sys.argv[3]))
