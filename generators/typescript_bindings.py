"""TypeScript bindings: types per contract version rendered from templates over the resolved model (as Go
and Rust: generators/templates/typescript/, both profiles merged by type name), schemas, kinds and the
schema-rule tables as data.

The types carry what TypeScript's types can say; every other constraint is checked by validation (ajv
over the bundled schema, which the runtime runs before decoding). Until contract model 1 the types came
from json-schema-to-typescript; the template keeps its public names: each profile's interface, each
definition's type, and an alias per field title (``Reward``, ``MaskSample``, ``FailureKind``, ...).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generators import paths
from generators.registry import FailureKindInfo
from generators.render import render_binding

PACKAGE = paths.ROOT / "bindings" / "typescript"
GENERATED = PACKAGE / "src" / "generated"


def artifacts(
    bundles: dict[str, dict[str, Any]], kinds: list[FailureKindInfo], models: dict[str, dict[str, Any]]
) -> dict[Path, str]:
    """The types of each version (``typescript/version``) and the files with every version's facts
    (``typescript/root``: the runtime's facts, the bundled schemas, the registry and the schema-rule tables
    as data), each rendered as ``verify-contract generate bindings/typescript --templates ... --profile all``
    renders it."""
    del kinds  # the registry comes from the newest resolved model
    versions = sorted(bundles, key=paths.version_key)
    files: dict[Path, str] = {}
    for version in versions:
        module = render_binding("typescript/version", version, models, bundles, name=paths.module_name(version))
        files.update((GENERATED / name, text) for name, text in module.items())
    root = render_binding("typescript/root", versions[-1], models, bundles)
    files.update((GENERATED / name, text) for name, text in root.items())
    return files
