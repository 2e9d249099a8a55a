"""Python bindings: each version's pydantic models and TypedDicts, rendered by the same renderer, view and
type macros as ``verify-contract generate python-pydantic`` (``codegen/templates/_shared/_pydantic.j2``).

The package's modules differ from a downstream's only where the package needs more (templates in
generators/templates/python/): one module holds every profile (``GymVerifyResponse`` extends
``VerifyResponse`` and shares its nested classes), the base class is ``verify_contract.model_base.
ContractModel``, every named ``$defs`` object is a class (``ResponsesCreateParams``), a registered kind
decodes to a ``RegisteredFailureKind`` enum member and each pattern definition keeps its name
(``FailureKindName``). The TypedDicts carry the same constrained types, so ``typeddict_adapter``
validates through pydantic as strictly as the models.

Until contract model 1 these modules came from datamodel-code-generator 0.89.0. Measured on the change
drill (tests/test_change_drill.py: a next version with one constrained field of each JSON type), its
output disagreed with the reference validator on 8 of the drill's 27 constraint vectors (9 failed vector
tests): the TypedDicts carried no constraint (``minimum: 1`` took 0, ``maximum: 100`` took 100.5,
``pattern`` and ``maxLength`` passed, a nested ``maximum`` passed), the models took ``"3"`` for an
integer (``--strict-types`` has no ``int``), and a nested object's undeclared members were dropped on a
round trip. It also needed text patches after each run (patterns restored in
TypedDicts, ``number`` widened to ``int | float``). It is no longer a dependency.
"""

from __future__ import annotations

import ast
from typing import Any

from generators import paths
from verify_contract.codegen._binding import merged_types, string_definitions
from generators.model import resolved_models
from generators.registry import load_registry
from generators.render import render
from verify_contract.codegen.header import GeneratedHeader


def _with_bases(model: dict[str, Any], structs: list[dict[str, Any]], roots: dict[str, str]) -> list[dict[str, Any]]:
    """The structs in an order Python can define them (nested objects, then each profile's root after the
    root it extends), each root with its ``base`` class and the members it does not inherit unchanged."""
    root_of = {model["profiles"][profile]["definition"]: name for profile, name in roots.items()}
    by_name = {struct["name"]: struct for struct in structs}
    ordered = [s for s in structs if s["name"] not in roots.values()]
    for profile, name in roots.items():
        struct = dict(by_name[name])
        extends = model["definitions"][model["profiles"][profile]["definition"]]["extends"]
        base = next((root_of[d] for d in extends if d in root_of and root_of[d] != name), None)
        struct["base"] = base
        inherited = by_name[base]["members"] if base else []
        struct["own_members"] = [m for m in struct["members"] if m not in inherited]
        ordered.append(struct)
    for struct in ordered:
        struct.setdefault("base", None)
        struct.setdefault("own_members", struct["members"])
    placed: list[dict[str, Any]] = []
    while ordered:  # a root after its base (profiles may list the extending one first)
        ready = next(s for s in ordered if s["base"] is None or s["base"] in {p["name"] for p in placed})
        placed.append(ready)
        ordered.remove(ready)
    return placed


def python_modules(version: str, model: dict[str, Any]) -> dict[str, str]:
    """Module name -> source, for one contract version's resolved model."""
    structs, _, roots = merged_types(model)
    patterns, enums = string_definitions(model)
    unions = {
        member["open_enum"]["name"]: {"name": member["open_enum"]["name"], "member": member}
        for struct in structs
        for member in struct["members"]
        if member["open_enum"]
    }
    context = {
        "version": version,
        "header": GeneratedHeader("bindings/python", version, "all", model["source_hash"]).line(),
        "structs": _with_bases(model, structs, roots),
        "patterns": patterns,
        "enums": enums,
        "unions": list(unions.values()),
        # A member constrained exactly by a pattern definition is typed by that definition's name.
        "names": {definition["constraints"]["pattern"]: name for name, definition in patterns},
    }
    return {
        "__init__.py": render("python/version_init.py.j2", {"version": version}),
        "models.py": render("python/models.py.j2", context),
        "typeddicts.py": render("python/typeddicts.py.j2", context),
    }


def _public_names(source: str) -> list[str]:
    """The ``__all__`` of a rendered module."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return [str(name) for name in ast.literal_eval(node.value)]
    raise ValueError("a generated bindings module without __all__")


def latest_modules(version: str, modules: dict[str, str]) -> dict[str, str]:
    """The ``latest`` subpackage: the newest version's public names, re-exported by name, so the package's
    ``verify_contract.models`` and ``typeddicts`` follow a new version without a hand edit."""
    package = f"verify_contract.generated.{paths.module_name(version)}"
    files = {"__init__.py": render("python/latest_init.py.j2", {"version": version})}
    for module, what in (("models", "pydantic models"), ("typeddicts", "TypedDicts")):
        names = _public_names(modules[f"{module}.py"])
        context = {"version": version, "package": package, "module": module, "what": what, "names": names}
        files[f"{module}.py"] = render("python/latest_module.py.j2", context)
    return files


def models_source(version: str, bundled: dict[str, Any]) -> str:
    """The ``models`` module of one bundled schema (e.g. an edited copy of a released version), resolved
    with the repository's registry: what ``python -m generators`` would write for it."""
    kinds = load_registry(paths.REGISTRY_FILE, paths.contract_versions())
    return python_modules(version, resolved_models({version: bundled}, kinds)[version])["models.py"]
