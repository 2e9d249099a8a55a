"""Consumer conformance: run the vectors through a trainer's read function and judge it by SPEC 4.2.

A read function takes one verify response, a dict as a trainer gets it from its JSON parser
(``takes="document"``) or the JSON text itself (``takes="text"``), and returns what the trainer acts on:
the mask (``reads="mask"``), the reward (``reads="reward"``), or both (``reads="both"``: a
``(mask, reward)`` pair or a mapping with keys ``mask`` and ``reward``). Refusing a document is raising.

Each document is judged at the consumer's profile and version, by the reference validator:

- Documents the consumer MUST refuse (SPEC 4.2.2): a non-boolean mask when it reads the mask
  (``consumer-refuse-mask``), a missing or non-number reward when it reads the reward
  (``consumer-refuse-reward``), a document that breaks section 2.1 (``consumer-refuse-json``: only a
  text reader can see most of those, so raw JSON-text vectors apply only to ``takes="text"``).
- Valid documents it MUST read: refusing one breaks the obligation that covers what it carries
  (``consumer-earlier-versions``, ``consumer-unregistered-kinds``, ``consumer-unknown-keys``, else
  ``consumer-effective-mask`` / ``consumer-refuse-reward``), and a returned mask or reward must be the
  document's effective mask and reward value.
- Documents invalid for other reasons (a malformed ``failure_kind``, a gym document without its
  request echo): the consumer MAY refuse them; if it answers, the answer must still be right.

Vectors of later versions than the consumer's do not apply; earlier ones do (SPEC 4.2.4). At the gym
profile, core-profile documents are given the minimal request echo they lack (``profile_echo``).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from verify_contract.conformance.report import ConformanceReport, short
from verify_contract.contract import (
    DEFAULT_PROFILE,
    LATEST_VERSION,
    MaskTypeError,
    Profile,
    ResolvedModel,
    check_profile,
    check_version,
    contract_model,
    declared_fields,
    effective_mask,
    json_pointer,
    registered_failure_kinds,
    version_key,
)
from verify_contract.generated.contract_names import ROLE_FAILURE_KIND, ROLE_LEGACY_MASK, ROLE_MASK, ROLE_REWARD
from verify_contract.reference import parse_json, validate
from verify_contract.vectors import Vector, load_vectors

Reads = Literal["mask", "reward", "both"]
Takes = Literal["document", "text"]
InvalidPolicy = Literal["refuse", "skip"]
READS: tuple[Reads, ...] = ("mask", "reward", "both")
TAKES: tuple[Takes, ...] = ("document", "text")

# The empty value of each JSON type: what a member a profile requires gets in ``profile_echo``.
_EMPTY: dict[str, Any] = {"object": {}, "array": [], "string": "", "number": 0, "integer": 0, "boolean": False}


@cache
def _profile_echo(version: str, profile: Profile) -> dict[str, Any]:
    model = contract_model(version)
    nested = model.profiles[profile].nested_required

    def empty(pointer: str) -> Any:
        field = model.field(pointer)
        types = [t for t in field.types if t != "null"] if field is not None else []
        if not types:
            return None
        if "object" in types:
            return {name: empty(pointer + json_pointer([name])) for name in nested.get(pointer, ())}
        return _EMPTY[types[0]]

    base = model.profiles[model.default_profile].required
    return {name: empty(json_pointer([name])) for name in model.profiles[profile].required if name not in base}


def profile_echo(version: str, profile: Profile) -> dict[str, Any]:
    """The smallest members that turn a document of the default profile into one of ``profile`` (the gym
    profile's request echo), from the model: each member the profile requires beyond the default one, with
    the empty value of its JSON type and, for an object, the members the profile requires in it. Empty at
    the default profile. A fresh copy on each call."""
    return copy.deepcopy(_profile_echo(check_version(version), check_profile(profile)))


def with_echo(document: Any, version: str, profile: Profile) -> Any:
    """``document`` with ``profile_echo`` added when it is an object that has none of the echo's members."""
    echo = profile_echo(version, profile)
    if echo and isinstance(document, dict) and not echo.keys() & document.keys():
        return {**echo, **document}
    return document


def _role_rules(model: ResolvedModel, *roles: str) -> frozenset[str]:
    """The error rules of the fields playing ``roles``: missing, wrong type, invalid, and the catalogue's
    semantic rules on the role (the reward's finiteness)."""
    found: set[str] = set()
    for role in roles:
        field = model.role(role)
        if field is not None:
            found.update(choice.rule for choice in (*field.type_rules, *field.invalid_rules))
            found.update([field.missing_rule] if field.missing_rule else [])
    found.update(r["id"] for r in model.rules if r.get("role") in roles and r["severity"] == "error")
    return frozenset(found)


_LATEST = contract_model(LATEST_VERSION)
MASK_RULES = _role_rules(_LATEST, ROLE_MASK, ROLE_LEGACY_MASK)
REWARD_RULES = _role_rules(_LATEST, ROLE_REWARD)


def _member(role: str) -> str:
    """The top-level member playing ``role`` (the newest version's: earlier ones put it in the same place)."""
    field = _LATEST.role(role)
    if field is None or len(field.path) != 1:
        raise RuntimeError(f"the contract's {role} role is not a top-level member")
    return field.name


_KIND_MEMBER, _REWARD_MEMBER = _member(ROLE_FAILURE_KIND), _member(ROLE_REWARD)
# Section 2.1's rules: the JSON text, and a top-level value that is not an object.
JSON_RULES = frozenset(
    {r["id"] for r in _LATEST.rules if r.get("scope") == "text"} | {c.rule for c in _LATEST.document_type_rules}
)


@dataclass(frozen=True)
class ConsumerCase:
    """One document a consumer is given, with the reference's error rules at the consumer's settings."""

    vector: Vector
    text: str
    document: Any
    """The parsed document, or None when the text breaks section 2.1."""
    errors: frozenset[str]
    earlier: bool
    """The vector is of an earlier contract version than the consumer's."""


def consumer_cases(
    profile: Profile, version: str, vectors: Iterable[Vector] | None = None, takes: Takes = "document"
) -> tuple[list[ConsumerCase], int]:
    """The applicable cases and the number of vectors that do not apply."""
    check_profile(profile)
    check_version(version)
    cases: list[ConsumerCase] = []
    skipped = 0
    for vector in load_vectors() if vectors is None else vectors:
        if version_key(vector.contract_version) > version_key(version) or (
            not vector.has_instance and takes == "document"
        ):
            skipped += 1
            continue
        if vector.has_instance:
            document = copy.deepcopy(vector.instance)
            document = with_echo(document, version, profile)
            text = json.dumps(document, ensure_ascii=False)
            errors = frozenset(f.rule for f in validate(document, version, profile).errors)
        else:
            text = vector.text
            parsed = parse_json(text)
            document = parsed.document if parsed.ok else None
            if parsed.finding is not None:
                errors = frozenset({parsed.finding.rule})
            else:
                errors = frozenset(f.rule for f in validate(document, version, profile).errors)
        earlier = version_key(vector.contract_version) < version_key(version)
        cases.append(ConsumerCase(vector, text, document, errors, earlier))
    return cases, skipped


def _split(result: Any, reads: Reads) -> tuple[Any, Any]:
    if reads == "mask":
        return result, None
    if reads == "reward":
        return None, result
    if isinstance(result, Mapping):
        return result.get("mask"), result.get("reward")
    if isinstance(result, (tuple, list)) and len(result) == 2:
        return result[0], result[1]
    return None, None  # neither a pair nor a mapping: no mask and no reward were read


def _is_bool(value: Any) -> bool:
    """A boolean, or a NumPy-style boolean scalar; not 0, 1 or a string."""
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def _number(value: Any) -> float | None:
    """A finite number's value; None for booleans, strings and anything else (no coercion)."""
    if isinstance(value, (bool, str, bytes)):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _expected_mask(document: Any) -> bool | None:
    """The effective mask, or None when the document has none (a non-boolean mask, not an object)."""
    if not isinstance(document, dict):
        return None
    try:
        return effective_mask(document)
    except MaskTypeError:  # a non-boolean mask
        return None


def _must_refuse(case: ConsumerCase, wants_mask: bool, wants_reward: bool) -> dict[str, list[str]]:
    """Obligation id -> the rules that oblige the consumer to refuse this document."""
    refuse: dict[str, list[str]] = {}
    json_rules = sorted(case.errors & JSON_RULES)
    if json_rules:
        refuse["consumer-refuse-json"] = json_rules
    if wants_mask and case.errors & MASK_RULES:
        refuse["consumer-refuse-mask"] = sorted(case.errors & MASK_RULES)
    if wants_reward and case.errors & REWARD_RULES:
        refuse["consumer-refuse-reward"] = sorted(case.errors & REWARD_RULES)
    return refuse


def _refusal_obligation(case: ConsumerCase, version: str, profile: Profile, wants_mask: bool) -> str:
    """The obligation a consumer breaks by refusing this valid document: the most specific one covering what
    it carries (an unknown kind, then unknown keys, then an earlier version's missing fields)."""
    document = case.document
    kind = document.get(_KIND_MEMBER) if isinstance(document, dict) else None
    kinds = contract_model(version).failure_kinds
    separator = kinds["namespace_separator"] if kinds else ":"
    if isinstance(kind, str) and (separator in kind or kind not in registered_failure_kinds(version)):
        return "consumer-unregistered-kinds"
    known = declared_fields(version) | profile_echo(version, profile).keys()
    if isinstance(document, dict) and set(document) - known:
        return "consumer-unknown-keys"
    if case.earlier:
        return "consumer-earlier-versions"
    return "consumer-effective-mask" if wants_mask else "consumer-refuse-reward"


def check_consumer(
    read: Callable[[Any], Any],
    reads: Reads = "mask",
    vectors: Iterable[Vector] | None = None,
    invalid: InvalidPolicy = "refuse",
    name: str | None = None,
    version: str = LATEST_VERSION,
    profile: Profile = DEFAULT_PROFILE,
    takes: Takes = "document",
) -> ConformanceReport:
    """Run the vectors through ``read`` and report each obligation of SPEC 4.2 it breaks.

    ``invalid="skip"`` leaves out the documents the consumer must refuse, for a read function that only
    ever sees documents a validation step has already accepted (that step then carries the refusals).
    """
    if reads not in READS:
        raise ValueError(f"reads must be one of {READS}, not {reads!r}")
    if takes not in TAKES:
        raise ValueError(f"takes must be one of {TAKES}, not {takes!r}")
    subject = name or f"{getattr(read, '__module__', '?')}.{getattr(read, '__qualname__', repr(read))}"
    cases, skipped = consumer_cases(profile, version, vectors, takes)
    report = ConformanceReport(subject, "consumer", profile, version, skipped=skipped)
    wants_mask = reads in ("mask", "both")
    wants_reward = reads in ("reward", "both")
    for case in cases:
        vector = case.vector
        refuse = _must_refuse(case, wants_mask, wants_reward)
        if refuse and invalid == "skip":
            report.skipped += 1
            continue
        report.checked += 1
        shown = short(case.document if case.document is not None else case.text, 160)
        given = case.text if takes == "text" else copy.deepcopy(case.document)
        try:
            result = read(given)
        except Exception as error:  # refusing is raising; what it raises is the reader's business
            if not refuse and not case.errors:
                obligation = _refusal_obligation(case, version, profile, wants_mask)
                detail = f"raised {type(error).__name__}: {short(str(error), 100)} on a valid document: {shown}"
                report.record(obligation, vector, detail)
            continue
        for obligation, rules in refuse.items():
            detail = f"returned {short(result)} instead of refusing ({', '.join(rules)}): {shown}"
            report.record(obligation, vector, detail)
        if refuse:
            continue
        mask, reward = _split(result, reads)
        expected_mask = _expected_mask(case.document)
        if wants_mask and expected_mask is not None and not (_is_bool(mask) and bool(mask) is expected_mask):
            detail = f"mask {short(mask)}, expected {str(expected_mask).lower()}: {shown}"
            report.record("consumer-effective-mask", vector, detail)
        expected_reward = _number(case.document.get(_REWARD_MEMBER)) if isinstance(case.document, dict) else None
        if wants_reward and expected_reward is not None and _number(reward) != expected_reward:
            detail = f"reward {short(reward)}, expected {expected_reward}: {shown}"
            report.record("consumer-refuse-reward", vector, detail)
    return report
