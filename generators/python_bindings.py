"""Python bindings: each version's pydantic models and TypedDicts, rendered by the same renderer, view and
type macros as ``verify-contract generate python-pydantic`` (``codegen/templates/_shared/_pydantic.j2``).

The package's modules differ from a downstream's only where the package needs more (templates in
generators/templates/python/, rendered by ``verify-contract generate --templates --profile all``): one
module holds every profile (``GymVerifyResponse`` extends ``VerifyResponse`` and shares its nested
classes), the base class is ``verify_contract.model_base.ContractModel``, every named ``$defs`` object is
a class (``ResponsesCreateParams``), a registered kind decodes to a ``RegisteredFailureKind`` enum member
and each pattern definition keeps its name (``FailureKindName``). The TypedDicts carry the same
constrained types, so ``typeddict_adapter`` validates through pydantic as strictly as the models.

Until contract model 1 these modules came from datamodel-code-generator 0.89.0. Measured on the change
drill (tests/package/test_change_drill.py: a next version with one constrained field of each JSON type), its
output disagreed with the reference validator on 8 of the drill's 27 constraint vectors (9 failed vector
tests): the TypedDicts carried no constraint (``minimum: 1`` took 0, ``maximum: 100`` took 100.5,
``pattern`` and ``maxLength`` passed, a nested ``maximum`` passed), the models took ``"3"`` for an
integer (``--strict-types`` has no ``int``), and a nested object's undeclared members were dropped on a
round trip. It also needed text patches after each run (patterns restored in
TypedDicts, ``number`` widened to ``int | float``). It is no longer a dependency.
"""

from __future__ import annotations

from typing import Any

from generators import paths
from generators.model import resolved_models
from generators.registry import load_registry
from generators.render import render_binding


def python_modules(
    version: str, models: dict[str, dict[str, Any]], bundles: dict[str, dict[str, Any]]
) -> dict[str, str]:
    """Module name -> source, for one contract version: ``python/version`` rendered as ``verify-contract
    generate bindings/python --templates ... --profile all --name __init__`` renders it."""
    return render_binding("python/version", version, models, bundles, name="__init__")


def package_init(models: dict[str, dict[str, Any]], bundles: dict[str, dict[str, Any]]) -> dict[str, str]:
    """The ``generated`` package's own modules, for every version, the newest last (``python/root``): its
    ``__init__`` and the registry as data (``failure_kinds``)."""
    return render_binding("python/root", max(models, key=paths.version_key), models, bundles, name="__init__")


def latest_modules(models: dict[str, dict[str, Any]], bundles: dict[str, dict[str, Any]]) -> dict[str, str]:
    """The ``latest`` subpackage (``python/latest``): the newest version's public names, re-exported by name,
    so the package's ``verify_contract.models`` and ``typeddicts`` follow a new version without a hand edit."""
    return render_binding("python/latest", max(models, key=paths.version_key), models, bundles, name="__init__")


def models_source(version: str, bundled: dict[str, Any]) -> str:
    """The ``models`` module of one bundled schema (e.g. an edited copy of a released version), resolved
    with the repository's registry: what ``python -m generators`` would write for it."""
    kinds = load_registry(paths.REGISTRY_FILE, paths.contract_versions())
    return python_modules(version, resolved_models({version: bundled}, kinds), {version: bundled})["models.py"]
