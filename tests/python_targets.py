"""Render a Python target of ``verify-contract generate``, import it, and find its strict decoder: the
one helper of the tests that run generated Python code (test_generate_differential.py,
test_template_generators.py)."""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from verify_contract.codegen import Request, render

PYTHON_TARGETS = ("python-typeddict", "python-dataclass", "python-pydantic")


def import_path(path: Path) -> types.ModuleType:
    """Import a generated file under its stem (dataclasses and pydantic resolve annotations through
    ``sys.modules``, so the module is registered there)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def render_python_target(
    target: str,
    version: str,
    profile: str,
    directory: Path,
    *,
    model: Mapping[str, Any] | None = None,
    schema: Mapping[str, Any] | None = None,
) -> Path:
    """The target's one file for ``version`` and ``profile``, written to ``directory`` under a module name
    of its own (a version the package does not ship is given as ``model`` and ``schema``)."""
    (text,) = render(Request(target, version, profile, model=model, schema=schema)).values()
    path = directory / f"generated_{target.replace('-', '_')}_{version.replace('.', '_')}_{profile}.py"
    path.write_text(text, encoding="utf-8")
    return path


def decoder(module: types.ModuleType, target: str, profile: str) -> Callable[[Any], Any]:
    """The strict decoder of a generated module: it raises (each target its own error type) on a document
    the contract refuses."""
    root = "GymVerifyResponse" if profile == "gym" else "VerifyResponse"
    if target == "python-typeddict":
        reader: Callable[[Any], Any] = getattr(
            module, "read_" + ("gym_verify_response" if profile == "gym" else "verify_response")
        )
        return reader
    if target == "python-dataclass":
        from_dict: Callable[[Any], Any] = getattr(module, root).from_dict
        return from_dict
    validate: Callable[[Any], Any] = getattr(module, root).model_validate
    return validate


def text_reader(module: types.ModuleType, target: str, profile: str) -> Callable[[str | bytes], Any]:
    """The reader from JSON text of a generated module (SPEC 2.1's text rules, then the contract): it raises
    (each target its own error type) on a text the reference refuses."""
    root = "GymVerifyResponse" if profile == "gym" else "VerifyResponse"
    if target == "python-typeddict":
        reader: Callable[[str | bytes], Any] = getattr(
            module, "parse_" + ("gym_verify_response" if profile == "gym" else "verify_response")
        )
        return reader
    from_json: Callable[[str | bytes], Any] = getattr(module, root).from_json
    return from_json
