"""Runs inside one NeMo Gym release's virtual environment (Python 3.13, the real `nemo-gym` wheel).

It imports nothing from this repository: it builds Gym's own `BaseVerifyResponse` from each grid case and
dumps it the two ways Gym writes rows, and reads each contract document back with `model_validate`. The
verdicts are made outside, by the reference validator (tests/gym_oracle/test_gym_oracle.py).

stdin: {"cases": [{"id", "fields"}], "documents": [{"id", "text"}]}; a field value {"$float": "nan"} stands
for a float JSON cannot spell. stdout: one JSON object (see `main`).
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from importlib import metadata
from typing import Any

from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from nemo_gym.base_resources_server import BaseVerifyResponse
from pydantic import ValidationError


class _Recorder(logging.Handler):
    """Keeps what Gym logs while a model is built (0.7.0's failure_kind validator warns, never rejects)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$float"}:
            return float(value["$float"])
        return {key: _decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_decode(item) for item in value]
    return value


def _error_summary(error: ValidationError) -> list[dict[str, Any]]:
    return [{"loc": [str(part) for part in item["loc"]], "type": item["type"]} for item in error.errors()]


def _emit(case: dict[str, Any], recorder: _Recorder) -> dict[str, Any]:
    recorder.messages.clear()
    out: dict[str, Any] = {"id": case["id"]}
    try:
        model = BaseVerifyResponse(**_decode(case["fields"]))
    except ValidationError as error:
        out["refused"] = _error_summary(error)
        return out
    out["warnings"] = list(recorder.messages)
    out["texts"], out["refusals"] = {}, {}
    for way, serialise in _SERIALISERS.items():
        try:
            out["texts"][way] = serialise(model)
        except Exception as error:  # a serialiser refusing a value (pydantic_core, ValueError, ...) emits nothing
            out["refusals"][way] = f"{type(error).__name__}: {error}"
    return out


def _fastapi_reply(model: BaseVerifyResponse) -> str:
    # What `/verify` sends (and `judge_failsafe`'s JSONResponse): FastAPI's encoder, then Starlette's render.
    body = JSONResponse(content=jsonable_encoder(model)).body
    return bytes(body).decode("utf-8")


# The ways a Gym row leaves the model: pydantic's own JSON, the Python dump through the json module, and
# the HTTP reply of a resources server. Each is the installed release's (and its pinned libraries') code.
_SERIALISERS: dict[str, Callable[[BaseVerifyResponse], str]] = {
    "model_dump_json": lambda model: model.model_dump_json(),
    "json_dumps_model_dump": lambda model: json.dumps(model.model_dump(mode="json")),
    "fastapi_reply": _fastapi_reply,
}


def _read(document: dict[str, Any]) -> dict[str, Any]:
    """Gym's model reading one contract document: from parsed JSON, and from the text itself."""
    readers: dict[str, Callable[[str], BaseVerifyResponse]] = {
        "model_validate": lambda text: BaseVerifyResponse.model_validate(json.loads(text)),
        "model_validate_json": BaseVerifyResponse.model_validate_json,
    }
    out: dict[str, Any] = {"id": document["id"]}
    for way, read in readers.items():
        try:
            model = read(document["text"])
        except ValidationError as error:
            out[way] = {"refused": _error_summary(error)}
            continue
        try:
            out[way] = {"dump": model.model_dump_json()}
        except Exception as error:  # accepted, but pydantic cannot write it back (a lone surrogate)
            out[way] = {"dump": None, "unwritable": f"{type(error).__name__}: {error}"}
    return out


def _failure_kinds() -> list[str] | None:
    try:
        from nemo_gym import failure_kinds
    except ImportError:  # releases before 0.7.0 have no registry
        return None
    return sorted(failure_kinds.FAILURE_KINDS)


def main() -> None:
    request = json.loads(sys.stdin.read())
    recorder = _Recorder()
    logging.getLogger("nemo_gym").addHandler(recorder)
    result = {
        "release": metadata.version("nemo-gym"),
        "python": sys.version.split()[0],
        "model_file": sys.modules[BaseVerifyResponse.__module__].__file__,
        "fields": sorted(BaseVerifyResponse.model_fields),
        "failure_kinds": _failure_kinds(),
        "emitted": [_emit(case, recorder) for case in request["cases"]],
        "read": [_read(document) for document in request["documents"]],
    }
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
