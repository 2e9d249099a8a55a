"""The resolved contract model of each version, as shipped in the package (generated/model/<version>.json).

Everything that knows the contract's shape reads it from here: fields (where they live, JSON types,
constraints, the rule each violation maps to), profiles and their required members, the semantic roles
of fields, the failure-kind grammar and registered kinds, the rule catalogue (the budget's rules too), the
I-JSON limits, the SPEC's obligations and the rollout keys the failure budget reads.
docs/resolved-model.md documents the format; ``python -m generators`` writes it from schema/.
"""

from __future__ import annotations

import json
import os
from functools import cache

from verify_contract.records import FrozenRecord

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any

MODEL_FORMAT = "verify-contract-model/1"


class RuleChoice(FrozenRecord):
    """A rule a violation maps to, limited to offending values of some JSON types (``instance``; None: any)."""

    __slots__ = ("rule", "instance")  # noqa: RUF023 (the constructor's order: repr and pickling use it)
    rule: str
    instance: tuple[str, ...] | None

    def __init__(self, rule: str, instance: tuple[str, ...] | None = None) -> None:
        self._freeze(rule, instance)


class Field(FrozenRecord):
    """One field of the contract: where it lives, its JSON types and nullability, ``constraints`` (validation
    keywords beyond the JSON types: pattern, maxLength, minimum, items, ..., verbatim), its profiles, default
    and the rules its violations map to."""

    __slots__ = (  # noqa: RUF023 (the constructor's order: repr and pickling use it)
        "pointer",
        "path",
        "name",
        "parent",
        "types",
        "nullable",
        "constraints",
        "definition",
        "enum_definition",
        "title",
        "description",
        "deprecated",
        "deprecated_since",
        "since",
        "profiles",
        "required_in",
        "has_default",
        "default",
        "additional_properties",
        "missing_rule",
        "type_rules",
        "invalid_rules",
    )
    pointer: str
    path: tuple[str, ...]
    name: str
    parent: str
    types: tuple[str, ...]
    nullable: bool
    constraints: dict[str, Any]
    definition: str | None
    enum_definition: str | None
    title: str | None
    description: str | None
    deprecated: bool
    deprecated_since: str | None
    since: str
    profiles: tuple[str, ...]
    required_in: tuple[str, ...]
    has_default: bool
    default: Any
    additional_properties: Any
    missing_rule: str | None
    type_rules: tuple[RuleChoice, ...]
    invalid_rules: tuple[RuleChoice, ...]

    def __init__(
        self,
        pointer: str,
        path: tuple[str, ...],
        name: str,
        parent: str,
        types: tuple[str, ...],
        nullable: bool,
        constraints: dict[str, Any],
        definition: str | None,
        enum_definition: str | None,
        title: str | None,
        description: str | None,
        deprecated: bool,
        deprecated_since: str | None,
        since: str,
        profiles: tuple[str, ...],
        required_in: tuple[str, ...],
        has_default: bool,
        default: Any,
        additional_properties: Any,
        missing_rule: str | None,
        type_rules: tuple[RuleChoice, ...],
        invalid_rules: tuple[RuleChoice, ...],
    ) -> None:
        self._freeze(
            pointer,
            path,
            name,
            parent,
            types,
            nullable,
            constraints,
            definition,
            enum_definition,
            title,
            description,
            deprecated,
            deprecated_since,
            since,
            profiles,
            required_in,
            has_default,
            default,
            additional_properties,
            missing_rule,
            type_rules,
            invalid_rules,
        )


class ProfileFacts(FrozenRecord):
    """A profile: its ``$defs`` entry, required top-level members and required members of nested objects."""

    __slots__ = ("name", "definition", "required", "nested_required")  # noqa: RUF023 (constructor order)
    name: str
    definition: str
    required: tuple[str, ...]
    nested_required: dict[str, tuple[str, ...]]

    def __init__(
        self, name: str, definition: str, required: tuple[str, ...], nested_required: dict[str, tuple[str, ...]]
    ) -> None:
        self._freeze(name, definition, required, nested_required)


class RolloutKeys(FrozenRecord):
    """The members NeMo Gym's collector writes beside a response that the failure budget reads (SPEC 11.1):
    a rollout's ``identity`` across attempts (task index, rollout index) and a failures-file row's
    ``failure_class``."""

    __slots__ = ("identity", "failure_class")  # noqa: RUF023 (the constructor's order: repr and pickling use it)
    identity: tuple[str, ...]
    failure_class: str

    def __init__(self, identity: tuple[str, ...], failure_class: str) -> None:
        self._freeze(identity, failure_class)


class ResolvedModel(FrozenRecord):
    """The resolved model of one contract version; ``raw`` is the model as JSON data (what templates
    render from). Hashed by version and source hash."""

    __slots__ = (  # noqa: RUF023 (the constructor's order: repr and pickling use it)
        "version",
        "source_hash",
        "default_profile",
        "max_depth",
        "profiles",
        "fields",
        "roles",
        "failure_kinds",
        "rules",
        "budget_rules",
        "rollout_keys",
        "obligations",
        "definitions",
        "document_type_rules",
        "document_invalid_rules",
        "raw",
    )
    version: str
    source_hash: str
    default_profile: str
    max_depth: int
    profiles: dict[str, ProfileFacts]
    fields: tuple[Field, ...]
    roles: dict[str, str]
    failure_kinds: dict[str, Any] | None
    rules: tuple[dict[str, Any], ...]
    budget_rules: tuple[dict[str, Any], ...]
    rollout_keys: RolloutKeys
    obligations: tuple[dict[str, Any], ...]
    definitions: dict[str, Any]
    document_type_rules: tuple[RuleChoice, ...]
    document_invalid_rules: tuple[RuleChoice, ...]
    raw: dict[str, Any]

    def __init__(
        self,
        version: str,
        source_hash: str,
        default_profile: str,
        max_depth: int,
        profiles: dict[str, ProfileFacts],
        fields: tuple[Field, ...],
        roles: dict[str, str],
        failure_kinds: dict[str, Any] | None,
        rules: tuple[dict[str, Any], ...],
        budget_rules: tuple[dict[str, Any], ...],
        rollout_keys: RolloutKeys,
        obligations: tuple[dict[str, Any], ...],
        definitions: dict[str, Any],
        document_type_rules: tuple[RuleChoice, ...],
        document_invalid_rules: tuple[RuleChoice, ...],
        raw: dict[str, Any],
    ) -> None:
        self._freeze(
            version,
            source_hash,
            default_profile,
            max_depth,
            profiles,
            fields,
            roles,
            failure_kinds,
            rules,
            budget_rules,
            rollout_keys,
            obligations,
            definitions,
            document_type_rules,
            document_invalid_rules,
            raw,
        )

    def field(self, pointer: str) -> Field | None:
        return self._by_pointer().get(pointer)

    def role(self, role: str) -> Field | None:
        """The field playing a SPEC role (reward, mask, legacy_mask, failure_kind, failure_reason) here."""
        pointer = self.roles.get(role)
        return None if pointer is None else self.field(pointer)

    def fields_of(self, profile: str) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if profile in f.profiles)

    def registered_kinds(self) -> frozenset[str]:
        """The failure kinds registered at this version (none before the registry)."""
        return frozenset(kind["id"] for kind in self.failure_kinds["registered"]) if self.failure_kinds else frozenset()

    @cache  # noqa: B019 - models are few and live as long as the process
    def _by_pointer(self) -> dict[str, Field]:
        return {f.pointer: f for f in self.fields}

    def __hash__(self) -> int:
        return hash((self.version, self.source_hash))


def _choices(entries: list[dict[str, Any]]) -> tuple[RuleChoice, ...]:
    return tuple(RuleChoice(e["rule"], tuple(e["instance"]) if "instance" in e else None) for e in entries)


def _field(data: dict[str, Any]) -> Field:
    rules = data["rules"]
    return Field(
        pointer=data["pointer"],
        path=tuple(data["path"]),
        name=data["name"],
        parent=data["parent"],
        types=tuple(data["types"]),
        nullable=data["nullable"],
        constraints=data["constraints"],
        definition=data["definition"],
        enum_definition=data["enum_definition"],
        title=data["title"],
        description=data["description"],
        deprecated=data["deprecated"],
        deprecated_since=data["deprecated_since"],
        since=data["since"],
        profiles=tuple(data["profiles"]),
        required_in=tuple(data["required_in"]),
        has_default="default" in data,
        default=data.get("default"),
        additional_properties=data.get("additional_properties"),
        missing_rule=rules["missing"],
        type_rules=_choices(rules["type"]),
        invalid_rules=_choices(rules["invalid"]),
    )


def model_from_data(data: dict[str, Any]) -> ResolvedModel:
    if data.get("format") != MODEL_FORMAT:
        raise ValueError(f"not a {MODEL_FORMAT} document: format {data.get('format')!r}")
    return ResolvedModel(
        version=data["version"],
        source_hash=data["source_hash"],
        default_profile=data["default_profile"],
        max_depth=data["limits"]["max_depth"],
        profiles={
            name: ProfileFacts(
                name,
                p["definition"],
                tuple(p["required"]),
                {k: tuple(v) for k, v in p["nested_required"].items()},
            )
            for name, p in data["profiles"].items()
        },
        fields=tuple(_field(f) for f in data["fields"]),
        roles=dict(data["roles"]),
        failure_kinds=data["failure_kinds"],
        rules=tuple(data["rules"]),
        budget_rules=tuple(data["budget_rules"]),
        rollout_keys=RolloutKeys(tuple(data["rollout_keys"]["identity"]), data["rollout_keys"]["failure_class"]),
        obligations=tuple(data["obligations"]),
        definitions=data["definitions"],
        document_type_rules=_choices(data["document_rules"]["type"]),
        document_invalid_rules=_choices(data["document_rules"]["invalid"]),
        raw=data,
    )


@cache
def contract_model(version: str) -> ResolvedModel:
    """The resolved model of one contract version (``ValueError`` for a version the package lacks)."""
    # Beside this file, not through importlib.resources (~8 ms) nor pathlib (~4 ms with what it imports):
    # check's start-up pays for every import here.
    path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "generated", "model", f"{version}.json")
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except FileNotFoundError:
        raise ValueError(f"unknown contract version {version!r}") from None
    return model_from_data(json.loads(text))
