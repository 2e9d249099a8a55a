"""Rust bindings: serde types per contract version, rendered from templates over the resolved model.

typify 0.8.0 was tried first and its output does not compile for these schemas, drops unknown keys, turns
integer rewards into floats and writes ``null``/absent fields wrongly (evidence in
bindings/rust/GENERATION.md), so the types are rendered by templates (generators/templates/rust/, rendered
by ``verify-contract generate --templates --profile all``) over the model's view of each profile
(verify_contract.codegen: the walker every target shares); the two profiles of a version share one module,
their types merged by name as for Go.

Mapping (the contract's requirements on the bindings, see SPEC.md "Bindings"):
- an object with ``additionalProperties: true`` keeps unknown members in ``extra`` (``#[serde(flatten)]``);
- ``number`` and ``integer`` are ``serde_json::Number``, so ``1`` encodes back as ``1``; ``boolean`` is a
  strict ``bool``;
- an optional field is ``Option<T>`` and refuses ``null``; an optional nullable field is ``Option<Option<T>>``,
  so absent, ``null`` and a value all encode back as they came;
- a boolean field with a ``default`` gets a ``<name>_or_default()`` accessor (absent stays absent on encode);
- an open enum (registered kinds or any well-formed name) is a string newtype: the registered members are
  associated constants, and any string matching the grammar is accepted too;
- what a Rust type cannot say (a pattern, a length, a bound, typed items) is checked by the bundled schema,
  which the runtime validates before decoding; each such field's documentation names the keywords.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generators import paths
from generators.bundle import dump_json
from generators.registry import FailureKindInfo
from generators.render import render_binding

RUST_DIR = paths.ROOT / "bindings" / "rust"
GENERATED_DIR = RUST_DIR / "src" / "generated"


def artifacts(
    bundles: dict[str, dict[str, Any]], registry: list[FailureKindInfo], models: dict[str, dict[str, Any]]
) -> dict[Path, str]:
    """Every generated Rust file: one module and one bundled schema per version, and ``mod.rs``, each
    rendered as ``verify-contract generate bindings/rust --templates ... --profile all`` renders it."""
    del registry  # the registered kinds of each version come from its resolved model
    versions = sorted(bundles, key=paths.version_key)
    out: dict[Path, str] = {}
    for version in versions:
        out[GENERATED_DIR / "schemas" / f"{version}.json"] = dump_json(bundles[version])
        module = render_binding("rust/version", version, models, bundles, name=paths.module_name(version))
        out.update((GENERATED_DIR / name, text) for name, text in module.items())
    root = render_binding("rust/root", versions[-1], models, bundles)
    out.update((GENERATED_DIR / name, text) for name, text in root.items())
    return out
