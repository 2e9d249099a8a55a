"""The differ's bindings direction, checked against the real Python generator.

For each edit the generated pydantic models of both sides are built (generators/python_bindings.py, the
renderer behind the package's own models) and their public surface compared: class and alias names, each
model's ``extra`` policy, and each field's type, requiredness and default. The differ must report a change
that breaks ``bindings`` exactly when that surface changes: keywords whose removal keeps validation but
changes generated code (a definition's ``title``, ``default``) are caught, and the spellings the differ
calls equivalent (annotations, ``x-`` keywords, no-op bounds, ``const: null``) really leave the bindings
alone.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from test_diff_catalogue import BASE, ENTRIES, apply_patch, released, run_entry

from generators.bundle import bundle
from generators.python_bindings import models_source
from verify_contract.diff import Break

# Catalogue entries that edit only the main schema file (the generator input), by class of edit.
CASES = [
    "remove-explicit-additional-properties-true",
    "add-explicit-additional-properties-true",
    "rename-definition-title",
    "remove-default",
    "change-default",
    "add-default",
    "description-only",
    "extension-keyword-added",
    "min-length-zero",
    "const-null-for-type-null",
    "type-array-reordered",
    "single-branch-anyof",
    "pattern-equivalent",
]
_module_ids = itertools.count()


def public_surface(schema: dict[str, Any]) -> dict[str, Any]:
    """What code importing the generated models sees."""
    source = models_source(BASE, bundle(schema, released(BASE, "failure_kinds.schema.json")))
    name = f"_surface_{next(_module_ids)}"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.py"
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    surface: dict[str, Any] = {}
    for attribute, value in vars(module).items():
        if attribute.startswith("_") or getattr(value, "__module__", name) != name:
            continue
        if isinstance(value, type) and issubclass(value, BaseModel):
            value.model_rebuild()
            surface[attribute] = {
                "extra": value.model_config.get("extra"),
                "fields": {
                    field: [repr(info.annotation), info.is_required(), repr(info.default)]
                    for field, info in value.model_fields.items()
                },
            }
        else:
            surface[attribute] = repr(value)
    # Each generated module has its own name; the surface must not.
    return json.loads(json.dumps(surface, default=str).replace(f"{name}.", ""))


@pytest.mark.parametrize("name", CASES)
def test_bindings_direction_matches_the_generated_surface(name: str, tmp_path: Path) -> None:
    entry = next(e for e in ENTRIES if e["name"] == name)
    assert set(entry) & {"kinds", "registry", "base_registry"} == set(), "only schema edits reach the generator"
    old = apply_patch(released(BASE, "verify_response.schema.json"), entry.get("base", []))
    new = apply_patch(old, entry.get("schema", []))
    before, after = public_surface(old), public_surface(new)
    changed = {k: (before.get(k), after.get(k)) for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    report = run_entry(entry, tmp_path)
    reported = Break.BINDINGS in report.breaks
    assert reported == bool(changed), json.dumps(changed, indent=1, default=str)
