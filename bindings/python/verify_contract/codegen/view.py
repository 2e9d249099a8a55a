"""The one walker: a resolved contract model and a profile -> the view every template renders.

The resolved model (docs/resolved-model.md) lists fields flat, by pointer. Templates want types: the
objects a profile declares, each with its members in declaration order, every member's JSON kind, and
what its constraints ask. The view is plain data (dicts, lists, strings), so a downstream template sees
exactly what the built-in ones see (docs/generate.md documents it).

Constraints are sorted into ``checks`` (keywords every built-in target turns into a decoding check) and
``unchecked`` (keywords no target implements in code: the generated code names them and leaves them to
the bundled JSON Schema, the ``jsonschema`` target). No keyword is refused and none is dropped.
"""

from __future__ import annotations

import keyword
import re
from typing import Any

from verify_contract.contract import MASK_ROLES, pointer_path
from verify_contract.generated.contract_names import ROLE_LEGACY_MASK, ROLE_MASK

# Keywords the built-in targets check in generated code, per JSON kind of the value.
CHECKED_KEYWORDS: dict[str, frozenset[str]] = {
    "string": frozenset({"pattern", "minLength", "maxLength", "enum", "const"}),
    "integer": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum", "const"}),
    "number": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum", "const"}),
    "boolean": frozenset({"enum", "const"}),
    "array": frozenset({"minItems", "maxItems", "items"}),
    "object": frozenset(),
    "any": frozenset(),
}
SCALAR_KINDS = ("boolean", "integer", "number", "string")


class ViewError(ValueError):
    """The model cannot be viewed at this profile (an unknown profile)."""


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def pascal(name: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in _words(name)) or "X"


def camel(name: str) -> str:
    text = pascal(name)
    return text[:1].lower() + text[1:]


def snake(name: str) -> str:
    return "_".join(w.lower() for w in _words(name)) or "x"


def screaming(name: str) -> str:
    return snake(name).upper()


def py_ident(name: str) -> str:
    """A Python identifier for a JSON member name (the JSON name stays the alias)."""
    text = re.sub(r"\W", "_", name)
    if not text or text[0].isdigit():
        text = "_" + text
    return text + "_" if keyword.iskeyword(text) or text in {"extra", "model_config"} else text


_RUST_KEYWORDS_TEXT = """
as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut
pub ref return self Self static struct super trait true type unsafe use where while abstract become box do final
macro override priv try typeof unsized virtual yield extra
"""
RUST_KEYWORDS = frozenset(_RUST_KEYWORDS_TEXT.split())  # "extra" is the field holding unknown members


def go_ident(name: str) -> str:
    """An exported Go field name for a JSON member name (``Extra`` holds the unknown members)."""
    text = pascal(name)
    if text[0].isdigit():
        text = "X" + text
    return text + "_" if text == "Extra" else text


def rust_ident(name: str) -> str:
    """A Rust field name for a JSON member name (serde renames it back)."""
    text = snake(name)
    if text[0].isdigit():
        text = "_" + text
    return text + "_" if text in RUST_KEYWORDS else text


def _kind(types: list[str]) -> str:
    rest = [t for t in types if t != "null"]
    if rest == ["integer"]:
        return "integer"
    if set(rest) <= {"integer", "number"} and "number" in rest:
        return "number"
    if len(rest) == 1:
        return rest[0]
    return "any"


def _value_spec(kind: str, constraints: dict[str, Any]) -> dict[str, Any]:
    """What a value of ``kind`` must satisfy: checked keywords (verbatim), unchecked ones, typed items."""
    checked = CHECKED_KEYWORDS[kind]
    checks = {k: v for k, v in constraints.items() if k in checked and k != "items"}
    unchecked = sorted(k for k in constraints if k not in checked)
    items: dict[str, Any] | None = None
    if kind == "array":
        items = {"kind": "any", "nullable": False, "checks": {}, "unchecked": []}
        schema = constraints.get("items")
        if isinstance(schema, dict):
            simple = (
                set(schema)
                <= {"type", "title", "description"} | CHECKED_KEYWORDS["string"] | CHECKED_KEYWORDS["number"]
            )
            if "type" in schema and simple:
                types = [schema["type"]] if isinstance(schema["type"], str) else list(schema["type"])
                item_kind = _kind(types)
                if item_kind in SCALAR_KINDS:
                    inner = {k: v for k, v in schema.items() if k not in ("type", "title", "description")}
                    items = {"kind": item_kind, "nullable": "null" in types, **_value_spec(item_kind, inner)}
                    items.pop("item", None)
            if items["kind"] == "any":
                unchecked.append("items")
        elif schema is not None and schema is not True:
            unchecked.append("items")
    # "item", not "items": Jinja would read ``member.items`` as the dict method.
    return {"checks": checks, "unchecked": sorted(unchecked), "item": items}


def _states_default(field: dict[str, Any]) -> bool:
    """Whether the description already says what absence means ("Absent means false."), so that a template
    adding that sentence for a member with a default does not say it twice."""
    if "default" not in field or not field["description"]:
        return False
    default = field["default"]
    spelled = "true" if default is True else "false" if default is False else str(default)
    return f"absent means {spelled.lower()}" in " ".join(field["description"].lower().split())


def _unique(name: str, taken: set[str], parent: str) -> str:
    candidate = name
    if candidate in taken:
        candidate = parent + name
    index = 2
    while candidate in taken:
        candidate = f"{name}{index}"
        index += 1
    taken.add(candidate)
    return candidate


def build_view(
    model: dict[str, Any], profile: str, mask_roles: dict[str, str] | None = None, *, named_objects: bool = False
) -> dict[str, Any]:
    """The view of one profile of one resolved model (see docs/generate.md, "The template API").

    ``mask_roles`` (role -> pointer) are where the effective mask is read. The rule is contract-wide
    (SPEC 4.2: every 1.x document is read at both locations, whichever version declares them), so the
    caller passes ``contract.mask_locations`` of every version; by default this model's own roles. With
    ``named_objects``, an object member whose schema is a named definition is an object type even without
    declared members (a binding that names every definition's type); otherwise such a member is a plain
    map."""
    if profile not in model["profiles"]:
        raise ViewError(f"contract {model['version']} has no profile {profile!r} (has {sorted(model['profiles'])})")
    facts = model["profiles"][profile]
    definitions = model["definitions"]
    fields = [f for f in model["fields"] if profile in f["profiles"]]
    children: dict[str, list[dict[str, Any]]] = {}
    for field in fields:
        children.setdefault(field["parent"], []).append(field)

    root_definition = definitions[facts["definition"]]
    taken: set[str] = set()
    objects: list[dict[str, Any]] = []

    def make_object(pointer: str, name: str, description: str | None, additional: Any) -> dict[str, Any]:
        obj: dict[str, Any] = {
            "name": name,
            "pointer": pointer,
            "description": description or "",
            "open": additional is not False,
            "members": [],
            "required": [],
        }
        objects.append(obj)
        for field in children.get(pointer, []):
            obj["members"].append(make_member(field, name))
        obj["required"] = [m["name"] for m in obj["members"] if m["required"]]
        return obj

    def make_member(field: dict[str, Any], parent_name: str) -> dict[str, Any]:
        kind = _kind(field["types"])
        constraints = dict(field["constraints"])
        enum_definition = field["enum_definition"]
        registered: list[str] | None = None
        if enum_definition is not None:
            registered = list(definitions[enum_definition]["constraints"].get("enum", []))
            constraints.pop("enum", None)
        member: dict[str, Any] = {
            "name": field["name"],
            "pointer": field["pointer"],
            "kind": kind,
            "types": field["types"],
            "nullable": field["nullable"],
            "required": profile in field["required_in"],
            "has_default": "default" in field,
            "default": field.get("default"),
            "default_stated": _states_default(field),
            "title": field["title"],
            "description": field["description"] or "",
            "deprecated": field["deprecated"],
            "deprecated_since": field["deprecated_since"],
            "since": field["since"],
            "constraints": field["constraints"],
            "rules": field["rules"],
            "open_enum": None,
            "object": None,
        }
        if registered is not None:
            type_name = pascal(field["title"] or field["name"])
            member["open_enum"] = {"name": type_name, "definition": enum_definition, "registered": registered}
        if kind == "object":
            additional = constraints.pop("additionalProperties", field.get("additional_properties"))
            spec = _value_spec(kind, constraints)
            if isinstance(additional, dict):
                spec["unchecked"] = sorted([*spec["unchecked"], "additionalProperties"])
            if children.get(field["pointer"]) or (named_objects and field["definition"]):
                title = definitions[field["definition"]]["title"] if field["definition"] else None
                name = _unique(pascal(title or field["name"]), taken, parent_name)
                description = definitions[field["definition"]]["description"] if field["definition"] else None
                obj = make_object(field["pointer"], name, description or field["description"], additional)
                member["object"] = obj["name"]
        else:
            spec = _value_spec(kind, constraints)
        member.update(spec)
        return member

    root_name = _unique(pascal(root_definition["title"] or facts["definition"]), taken, "")
    make_object("", root_name, root_definition.get("description"), facts.get("additional_properties"))
    roles = {**{k: v for k, v in model["roles"].items() if k in MASK_ROLES}, **(mask_roles or {})}
    mask = legacy = None
    if ROLE_MASK in roles:
        mask = {"pointer": roles[ROLE_MASK], "path": list(pointer_path(roles[ROLE_MASK]))}
    if ROLE_LEGACY_MASK in roles:
        legacy = {"pointer": roles[ROLE_LEGACY_MASK], "path": list(pointer_path(roles[ROLE_LEGACY_MASK]))}
    kinds = model["failure_kinds"]
    return {
        "version": model["version"],
        "profile": profile,
        "source_hash": model["source_hash"],
        "root": root_name,
        # Nested objects first, so languages that need a type declared before use get that order
        # (``| reverse`` gives declaration order: the root, then each object where first met).
        "objects": list(reversed(objects)),
        # The mask locations, keyed by their roles (templates read ``view.mask`` and ``view.legacy_mask``).
        ROLE_MASK: mask,
        ROLE_LEGACY_MASK: legacy,
        "failure_kinds": kinds,
        "registered_kinds": [] if kinds is None else kinds["registered"],
        "max_depth": model["limits"]["max_depth"],
    }


def kinds_view(model: dict[str, Any]) -> dict[str, Any]:
    """The failure-kind registry of one version (the ``constants`` target needs no profile)."""
    kinds = model["failure_kinds"]
    return {
        "version": model["version"],
        "source_hash": model["source_hash"],
        "failure_kinds": kinds,
        "registered_kinds": [] if kinds is None else kinds["registered"],
    }


def _member_spec(member: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": member["name"],
        "kind": member["kind"],
        "nullable": member["nullable"],
        "required": member["required"],
        "object": member["object"],
        "checks": member["checks"],
        "item": None if member["item"] is None else {k: member["item"][k] for k in ("kind", "nullable", "checks")},
        "registered": None if member["open_enum"] is None else member["open_enum"]["registered"],
    }


def decoding_spec(view: dict[str, Any]) -> dict[str, Any]:
    """The language-neutral table the generated strict decoders interpret: each object's members with
    kind, nullability, presence, checked constraints, typed items and an open enum's registered values."""
    return {
        "version": view["version"],
        "profile": view["profile"],
        "root": view["root"],
        "objects": {
            obj["name"]: {"open": obj["open"], "members": [_member_spec(m) for m in obj["members"]]}
            for obj in view["objects"]
        },
        **{role: None if view[role] is None else view[role]["path"] for role in (ROLE_MASK, ROLE_LEGACY_MASK)},
    }
