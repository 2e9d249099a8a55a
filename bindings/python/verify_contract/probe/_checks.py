"""The probe's checks: each judges one reply (its status, headers, body and latency) under a stable id.

A check id names what was looked at (``probe-http-status``); a ``probe-contract`` finding keeps the
contract rule id the reference validator gave it (``reward-type``), with the check id in its context. The
same judge runs in ``verify-contract probe`` and in ``verify_contract.asgi``'s middleware.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from verify_contract.contract import (
    ABSENT,
    MaskTypeError,
    Profile,
    ResolvedModel,
    cap,
    contract_model,
    effective_mask,
    resolve_contract,
    value_at,
)
from verify_contract.findings import Finding, Severity
from verify_contract.generated.contract_names import ROLE_FAILURE_KIND, ROLE_LEGACY_MASK, ROLE_MASK, ROLE_REWARD
from verify_contract.reference import deprecations, ecma_search, parse_json, registered_kinds, validate

MESSAGE_CAP = 200
"""No message the probe or the middleware writes is longer (SPEC 4.4; ``contract.cap`` cuts it): a reply's
values (a failure reason, an echoed request) may be long or private, so they are quoted only in part."""


@dataclass(frozen=True)
class Check:
    id: str
    summary: str
    default: bool
    """Run unless ``--checks`` names others (determinism and latency are asked for)."""
    role: str | None = None
    """The contract role (``schema/contract.yaml``) whose value the check judges: a contract finding on that
    value (a rule the model ties to the role or to its pointer) is the same defect, and the check's own
    finding is folded into it (``fold_repeats``)."""
    blames_request: bool = False
    """A finding of this check is the input's problem, not the server's: it breaks no contract and has its
    own exit code."""


MAX_REPLY_BYTES = 16 * 1024 * 1024
"""The most of a reply body the probe reads, after decompression, and the middleware holds (16 MiB): a
verify reply is a few kilobytes, and a larger one (an endless stream, a gzip bomb) is cut there."""

CHECKS: tuple[Check, ...] = (
    Check(
        "probe-http-status",
        "the server answers 200 with the whole reply, within --timeout and the size cap (a reply that never "
        "came, was cut or was too large is reported here too)",
        True,
    ),
    Check(
        "probe-request-refused",
        "a 4xx reply (but 408 and 429): the server refused the request, the input's problem, not a contract break",
        True,
        blames_request=True,
    ),
    Check("probe-content-type", "the reply is declared application/json (or a +json type)", True),
    Check("probe-contract", "the reply is valid for the profile and version; findings keep their rule ids", True),
    Check(
        "probe-failure-kind",
        "the failure kind is well formed and registered or namespaced, not deprecated",
        True,
        role=ROLE_FAILURE_KIND,
    ),
    Check(
        "probe-mask-agree",
        "the legacy mask, when written, is mirrored by the top-level mask (SPEC 4.1.5)",
        True,
        role=ROLE_LEGACY_MASK,
    ),
    Check(
        "probe-reward-finite",
        "the reward is a finite number (not null, NaN, Infinity or an overflow)",
        True,
        role=ROLE_REWARD,
    ),
    Check("probe-determinism", "the same request twice gives the same reward and mask (opt-in)", False),
    Check("probe-latency", "the reply comes within --max-latency seconds (opt-in: set --max-latency)", False),
)
CHECK_IDS: tuple[str, ...] = tuple(check.id for check in CHECKS)
DEFAULT_CHECKS: tuple[str, ...] = tuple(check.id for check in CHECKS if check.default)
REQUEST_CHECKS: frozenset[str] = frozenset(check.id for check in CHECKS if check.blames_request)
_BY_ID = {check.id: check for check in CHECKS}
_TRANSIENT_STATUSES = frozenset({408, 429})
"""4xx statuses that speak of the server's state (a request timeout, too many requests), not of the request."""
CHECK_CONTEXT = "check"
"""The context key naming the check that found a finding (a ``probe-contract`` finding's rule is the contract's)."""


def wire_profile(version: str) -> Profile:
    """The profile a resource server's replies claim (gym: the one requiring the request echo)."""
    profiles = contract_model(version).profiles
    return max(profiles, key=lambda name: len(profiles[name].required))


@cache
def request_fields(version: str) -> tuple[str, ...]:
    """The members of a verify request that the wire profile requires and a trainer's profile does not
    (the request echo: the request sent to the model and its response)."""
    model = contract_model(version)
    default = set(model.profiles[model.default_profile].required)
    return tuple(name for name in model.profiles[wire_profile(version)].required if name not in default)


@cache
def reply_fields(version: str) -> tuple[str, ...]:
    """The top-level members a server answers with (reward, mask, failure kind and reason, legacy config):
    a rollout row without them is the verify request it came from."""
    model = contract_model(version)
    return tuple(f.name for f in model.fields_of(model.default_profile) if not f.parent)


def _finding(check: str, severity: Severity, message: str, pointer: str = "", **context: Any) -> Finding:
    return Finding(check, severity, cap(message, MESSAGE_CAP), pointer, context={CHECK_CONTEXT: check, **context})


def _lenient_document(body: bytes) -> Any:
    """The body read as Python's json reads it (NaN, Infinity and huge numbers accepted), or ABSENT: the
    semantic checks still judge a reply whose text breaks JSON's rules."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return ABSENT


def _is_json_type(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


@dataclass(frozen=True)
class Reply:
    """What came back for one request: status, content type, body, seconds; ``status`` None when nothing did."""

    status: int | None
    content_type: str
    body: bytes
    latency: float
    error: str = ""
    cut: str = ""
    """Why ``body`` is not the whole reply (the connection dropped, the deadline passed, the size cap was
    reached), or empty when it is."""


@dataclass(frozen=True)
class Judged:
    """One reply's findings and what the statistics count of it."""

    findings: tuple[Finding, ...]
    document: Any
    """The parsed body (strict, else lenient), or ABSENT."""
    reward: Any
    mask: bool | None
    failure_kind: Any


def refused_by_request(status: int | None) -> bool:
    """Whether a status says the server refused the request itself (4xx, but timeouts and rate limits)."""
    return status is not None and 400 <= status < 500 and status not in _TRANSIENT_STATUSES


def judge_reply(
    reply: Reply,
    *,
    version: str,
    profile: Profile,
    checks: Sequence[str] = DEFAULT_CHECKS,
    max_latency: float | None = None,
    need_values: bool = True,
) -> Judged:
    """Every selected check on one reply (``probe-determinism`` needs two replies: ``compare_replies``).

    ``need_values=False`` (the middleware, which counts findings only) lets the compiled pre-check of
    ``check`` prove a reply clean: then the body checks have nothing to find and are not run, and the
    returned ``Judged`` holds no values."""
    found: list[Finding] = []
    selected = set(checks)
    nothing = Judged((), ABSENT, ABSENT, None, ABSENT)
    if reply.status is None:
        if "probe-http-status" in selected:
            found.append(_finding("probe-http-status", Severity.ERROR, f"no reply: {reply.error}", status=None))
        return replace(nothing, findings=tuple(found))
    if "probe-latency" in selected and max_latency is not None and reply.latency > max_latency:
        found.append(
            _finding(
                "probe-latency",
                Severity.ERROR,
                f"the reply took {reply.latency * 1000:.0f} ms, over the bound of {max_latency * 1000:.0f} ms",
                latency_ms=round(reply.latency * 1000, 3),
            )
        )
    if refused_by_request(reply.status) and "probe-request-refused" in selected:
        message = (
            f"the server refused the request with status {reply.status} (the input's problem, not the "
            f"server's): {cap(reply.body.decode('utf-8', 'replace'), 80)!r}"
        )
        found.append(_finding("probe-request-refused", Severity.ERROR, message, status=reply.status))
        return replace(nothing, findings=tuple(found))
    if reply.status != 200:
        if "probe-http-status" in selected:
            found.append(
                _finding(
                    "probe-http-status",
                    Severity.ERROR,
                    f"status {reply.status}, expected 200: {cap(reply.body.decode('utf-8', 'replace'), 80)!r}",
                    status=reply.status,
                )
            )
        return replace(nothing, findings=tuple(found))
    if reply.cut:
        # A part of a body judged as a whole would only repeat the cut as a syntax error.
        if "probe-http-status" in selected:
            message = f"status 200 but the reply is incomplete: {reply.cut} ({len(reply.body):,} bytes read)"
            found.append(_finding("probe-http-status", Severity.ERROR, message, status=reply.status))
        return replace(nothing, findings=tuple(found))
    if "probe-content-type" in selected and not _is_json_type(reply.content_type):
        shown = reply.content_type or "no content-type"
        found.append(
            _finding("probe-content-type", Severity.ERROR, f"{shown!r} is not a JSON media type (application/json)")
        )
    # A reply the compiled pre-check proves clean has nothing for the body checks to find: the middleware,
    # which counts findings only, stops here; the probe still reads its values (failure kind, mask) but skips
    # the reference validator, a millisecond a reply that held back the next requests on the event loop.
    clean = _proved_clean(reply.body, version, profile)
    if clean and not need_values:
        return replace(nothing, findings=tuple(found))
    if clean:
        # Nothing for the body checks to find: only the values the statistics and determinism read, from
        # json.loads (a strictly valid text reads the same as by parse_json, at a third of its cost).
        document = json.loads(reply.body)
        reward, kind = (value_at(document, field.path) if field else ABSENT for field in _value_fields(version))
        return Judged(tuple(found), document, reward, _effective(document), kind)
    parsed = parse_json(reply.body)
    document = parsed.document if parsed.ok else _lenient_document(reply.body)
    contract_findings: list[Finding] = []
    if "probe-contract" in selected and not clean:
        if parsed.finding is not None:
            judged_contract = [parsed.finding]
        else:
            judged_contract = validate(document, version, profile).findings
        context = {CHECK_CONTEXT: "probe-contract"}
        contract_findings = [
            Finding(item.rule, item.severity, cap(item.message, MESSAGE_CAP), item.pointer, context=context)
            for item in judged_contract
        ]
    model = contract_model(version)
    roles = {name: model.role(name) for name in (ROLE_REWARD, ROLE_MASK, ROLE_LEGACY_MASK, ROLE_FAILURE_KIND)}
    values = {
        name: (value_at(document, field.path) if field is not None and isinstance(document, dict) else ABSENT)
        for name, field in roles.items()
    }
    own: list[Finding] = []
    reward_field, mask_field, legacy_field = roles[ROLE_REWARD], roles[ROLE_MASK], roles[ROLE_LEGACY_MASK]
    if "probe-reward-finite" in selected and isinstance(document, dict) and reward_field is not None:
        own.extend(_reward_findings(values[ROLE_REWARD], reward_field.pointer, parsed.ok))
    if "probe-failure-kind" in selected:
        own.extend(_kind_findings(values[ROLE_FAILURE_KIND], model))
    if "probe-mask-agree" in selected and mask_field is not None and legacy_field is not None:
        own.extend(_mask_findings(values[ROLE_MASK], values[ROLE_LEGACY_MASK], mask_field.name))
    found.extend(fold_repeats(contract_findings, own, model, strict=parsed.ok))
    mask = _effective(document)
    return Judged(tuple(found), document, values[ROLE_REWARD], mask, values[ROLE_FAILURE_KIND])


@cache
def _value_fields(version: str) -> tuple[Any, Any]:
    """The reward's and the failure kind's fields (None where the version has no such role)."""
    model = contract_model(version)
    return model.role(ROLE_REWARD), model.role(ROLE_FAILURE_KIND)


READ_CONTEXT, LENIENT_READ = "read", "lenient"
"""A probe finding on a value only a lenient read of the text gives (a NaN token, an overflowing integer)
says so in its context: the contract check's text rule refused that very value."""
FOLDED_CONTEXT = "also_found_by"
"""The context key listing the probe checks whose finding was folded into a contract finding."""


def _rules_of_role(model: ResolvedModel, role: str) -> frozenset[str]:
    """The rules the model ties to a role's value: by ``role``, or by a ``where`` pointer at the role's field."""
    field = model.role(role)
    pointer = field.pointer if field is not None else None
    return frozenset(
        rule["id"]
        for rule in model.rules
        if rule.get("role") == role or any(where.get("pointer") == pointer for where in rule.get("where", ()))
    )


def fold_repeats(
    contract: Sequence[Finding], own: Sequence[Finding], model: ResolvedModel, *, strict: bool
) -> list[Finding]:
    """One finding per defect: a probe check's finding on a value the contract check already found at fault
    is folded into that contract finding, which keeps its rule id and message, takes the stricter of the two
    severities (the probe holds a producer to SPEC 4.1's MUSTs: a divergent legacy mask breaks 4.1.5 though
    the rule, a reader's view, warns) and lists the folded check under ``also_found_by``. When the text broke
    JSON's rules (a NaN token, an overflowing number), the body checks judged a lenient read of it: their
    findings repeat the text rule's, and are folded into it."""
    merged = list(contract)
    kept: list[Finding] = []
    for item in own:
        check = _BY_ID[check_of(item)]
        related = _rules_of_role(model, check.role) if check.role else frozenset()
        target = next(
            (
                index
                for index, found in enumerate(merged)
                if found.rule in related or (not strict and item.context.get(READ_CONTEXT) == LENIENT_READ)
            ),
            None,
        )
        if target is None:
            kept.append(item)
            continue
        host = merged[target]
        severity = max(host.severity, item.severity, key=lambda level: level.rank)
        folded = [*host.context.get(FOLDED_CONTEXT, ()), check.id]
        merged[target] = host.replace(severity=severity, context={**host.context, FOLDED_CONTEXT: folded})
    return [*merged, *kept]


def _proved_clean(body: bytes, version: str, profile: Profile) -> bool:
    """Whether ``check``'s compiled pre-check proves the body one valid document without any finding (one
    line: a body holding a newline, or a build without the C module, goes the full way). Such a reply passes
    every body check: valid with no warning means a number reward (strict JSON has no infinite one), a kind
    registered and not deprecated, or namespaced, and no legacy mask without its mirror."""
    if b"\n" in body or not body:
        return False
    from verify_contract.check import CLEAN_STATUSES, precheck_available, precheck_scan

    if not precheck_available():
        return False
    statuses, _ = precheck_scan(body, resolve_contract(version, profile))
    return len(statuses) == 1 and statuses[0] in CLEAN_STATUSES


def _reward_findings(reward: Any, pointer: str, strict: bool) -> list[Finding]:
    if reward is ABSENT:
        return []  # a missing reward is the contract's finding (reward-required)
    if reward is None:
        message = f"{pointer} is null: a NaN or infinite reward dumped by pydantic reads as null"
    elif isinstance(reward, bool) or not isinstance(reward, (int, float)):
        message = f"{pointer} is a {type(reward).__name__}, not a number"
    elif isinstance(reward, float) and not math.isfinite(reward):
        token = "NaN" if math.isnan(reward) else "Infinity" if reward > 0 else "-Infinity"
        message = f"{pointer} is {token}" + ("" if strict else " (a token JSON does not have)")
    elif isinstance(reward, int) and _overflows(reward):
        message = f"{pointer} is an integer beyond binary64: it overflows to infinity"
    else:
        return []
    if strict:
        return [_finding("probe-reward-finite", Severity.ERROR, message, pointer)]
    return [_finding("probe-reward-finite", Severity.ERROR, message, pointer, **{READ_CONTEXT: LENIENT_READ})]


def _overflows(number: int) -> bool:
    try:
        float(number)
    except OverflowError:
        return True
    return False


def _kind_findings(kind: Any, model: ResolvedModel) -> list[Finding]:
    kinds = model.failure_kinds
    field = model.role(ROLE_FAILURE_KIND)
    if kind is ABSENT or kind is None or kinds is None or field is None:
        return []
    where = field.pointer
    if not isinstance(kind, str):
        return [_finding("probe-failure-kind", Severity.ERROR, f"{where} is a {type(kind).__name__}", where)]
    shown = repr(cap(kind, 60))
    if not ecma_search(kinds["grammar"], kind):
        message = f"{where}: {shown} is outside the name grammar {kinds['grammar']}"
        return [_finding("probe-failure-kind", Severity.ERROR, message, where, kind=cap(kind, 60))]
    if kinds["namespace_separator"] in kind:
        return []
    if kind not in registered_kinds(model):
        message = f"{where}: {shown} is neither registered at {model.version} nor namespaced ('<server>:<kind>')"
        return [_finding("probe-failure-kind", Severity.WARNING, message, where, kind=kind)]
    deprecation = deprecations(model).get(kind)
    if deprecation is not None:
        renamed = deprecation.get("renamed_to")
        hint = f"; use {renamed!r}" if renamed else ""
        message = f"{where}: {shown} is deprecated since {deprecation['in']}{hint}"
        return [_finding("probe-failure-kind", Severity.WARNING, message, where, kind=kind)]
    return []


def _mask_findings(mask: Any, legacy: Any, mask_name: str) -> list[Finding]:
    if legacy is ABSENT or legacy is None:
        return []
    if mask is ABSENT:
        message = f"the legacy mask ({json.dumps(legacy)}) is written without the top-level {mask_name}"
        return [_finding("probe-mask-agree", Severity.ERROR, message)]
    if mask != legacy:
        message = f"{mask_name} is {json.dumps(mask)} but the legacy mask is {json.dumps(legacy)}"
        return [_finding("probe-mask-agree", Severity.ERROR, message)]
    return []


def _effective(document: Any) -> bool | None:
    """The effective mask (false for a reply that is no object), or None when a mask holds a non-boolean."""
    if not isinstance(document, dict):
        return False
    try:
        return effective_mask(document)
    except MaskTypeError:
        return None


def compare_replies(first: Judged, second: Judged, pointer: str = "") -> list[Finding]:
    """``probe-determinism``: the same request answered twice with the same reward and effective mask."""
    if first.document is ABSENT or second.document is ABSENT:
        return []  # an unanswered or unreadable reply is already reported by its own check
    if _same(first.reward, second.reward) and first.mask == second.mask:
        return []
    message = (
        f"the same request gave reward {_shown(first.reward)} then {_shown(second.reward)}, "
        f"effective mask {_shown(first.mask)} then {_shown(second.mask)}"
    )
    return [_finding("probe-determinism", Severity.ERROR, message, pointer)]


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, float) and isinstance(right, float) and math.isnan(left) and math.isnan(right):
        return True
    return bool(type(left) is type(right) and left == right)


def _shown(value: Any) -> str:
    return "absent" if value is ABSENT else cap(json.dumps(value), 40)


def breaking(findings: Sequence[Finding], warnings_as_errors: bool = False) -> bool:
    """Whether any finding breaks the contract (an error; a warning too when asked). A refused request is
    the input's problem (``probe-request-refused``), never a contract break."""
    bar = Severity.WARNING if warnings_as_errors else Severity.ERROR
    return any(f.severity.rank >= bar.rank and check_of(f) not in REQUEST_CHECKS for f in findings)


def refused(findings: Sequence[Finding]) -> bool:
    """Whether the server refused the request (a finding of a check that blames the request)."""
    return any(check_of(f) in REQUEST_CHECKS for f in findings)


def runnable_checks(checks: Sequence[str], max_latency: float | None) -> tuple[tuple[str, ...], dict[str, str]]:
    """The checks of ``checks`` that can run with these settings, in table order, and why each other one
    cannot (``--checks all`` runs every check that can run and says which it skipped)."""
    skipped = {"probe-latency": "needs a bound: --max-latency SECONDS"} if max_latency is None else {}
    chosen = tuple(check for check in CHECK_IDS if check in checks and check not in skipped)
    return chosen, {check: reason for check, reason in skipped.items() if check in checks}


def check_of(item: Finding) -> str:
    """The check that found ``item``."""
    check: str = item.context.get(CHECK_CONTEXT, item.rule)
    return check


def problem_details(findings: Sequence[Finding], limit: int = 20) -> Mapping[str, Any]:
    """An RFC 9457 problem document naming what a breaking reply broke (the middleware's enforce mode)."""
    shown = [item.as_dict() for item in findings[:limit]]
    return {
        "type": "about:blank",
        "title": "The verify reply breaks the contract",
        "status": 500,
        "detail": cap("; ".join(f"{f.rule}: {f.message}" for f in findings[:3]), 500),
        "findings": shown,
        "findings_left_out": max(0, len(findings) - limit),
    }
