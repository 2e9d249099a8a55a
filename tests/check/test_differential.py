"""The fast path against the reference, line by line: same verdict, same findings, same counts (the mask, the
legacy mask, the failure kind).

The corpus holds every kind of line the checker must get right (``corpus_lines.kind_lines``) and seeded
random mutations of valid lines; it runs at every contract version and in both profiles.
"""

from __future__ import annotations

import copy
import importlib.util
import itertools
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from verify_contract.check import CheckOptions, Outcome, check_chunk, reference_outcome
from verify_contract.check import _compose as check_compose
from verify_contract.check import _fastpath as fastpath
from verify_contract.check import _lines as check_lines
from verify_contract.check import _reference as check_reference
from verify_contract.check._text_events import text_event_outcome
from verify_contract.contract import ResolvedModel, contract_model, model_from_data, resolve_contract
from verify_contract.contract._versions import CONTRACT_VERSIONS, LATEST_VERSION, PROFILES, Profile
from verify_contract.reference import _validation as validation
from verify_contract.reference._jsonio import parse_json

from corpus_lines import kind_lines, model_lines, mutated_lines

LINES = kind_lines() + mutated_lines(4000)
CORPUS = b"\n".join(LINES) + b"\n"
LATEST = LATEST_VERSION
COMBOS = list(itertools.product(CONTRACT_VERSIONS, PROFILES))


def test_the_compiled_pre_check_is_built() -> None:
    # Without it every line takes the slow reference path: still correct, but the point is speed.
    assert fastpath.available()


def test_corpus_covers_every_status() -> None:
    statuses, others = fastpath.scan(CORPUS, resolve_contract("1.2.0", "core"))
    seen = Counter(statuses)
    assert seen[fastpath.STATUS_TEXT] > 500
    assert seen[fastpath.STATUS_CONTRACT] > 100
    assert seen[fastpath.STATUS_BLANK] >= 4
    assert sum(seen[s] for s in fastpath.CLEAN_STATUSES) > 500
    assert set(range(13)) <= set(seen)  # masked, legacy, registered and namespaced kinds
    keys = Counter(key[:1] for _, _, _, key in others if key is not None)
    assert keys[b"C"] > 300  # contract memo keys
    # text-event keys: the first defect in text order (SPEC 2.1) is a non-finite token or a repeated name,
    # a syntax defect, ill-formed UTF-8, a byte order mark or deep nesting
    assert keys[b"N"] > 20 and keys[b"D"] > 20
    assert keys[b"S"] > 1000 and keys[b"U"] > 100 and keys[b"T"] >= 5 and keys[b"B"] >= 1
    # and lines without one: a number that may overflow, a name beside an escaped one, no text defect
    assert sum(key is None for _, _, _, key in others) > 50
    shared = Counter(key for _, _, _, key in others if key is not None)
    assert sum(n for n in shared.values() if n > 1) > 500  # memo hits


@pytest.mark.parametrize(("version", "profile"), COMBOS)
def test_wrong_types_and_malformed_kinds_are_worded_by_the_table(version: str, profile: Profile) -> None:
    # The generated wording table (generators/wording.py) covers the wrong values producers write.
    model = contract_model(version)
    table = check_compose.wording(resolve_contract(version, profile))
    assert table is not None
    reward, mask = model.role("reward"), model.role("mask")
    assert reward is not None
    assert {"str", "list", "dict", "bool", "NoneType"} <= set(table.fields[reward.pointer])
    assert "float" not in table.fields[reward.pointer] and "int" not in table.fields[reward.pointer]  # allowed
    if mask is not None:
        assert {"int", "str"} <= set(table.fields[mask.pointer])
    kind_field = model.role("failure_kind")
    if kind_field is not None and kind_field.constraints:
        assert "pattern" in table.fields[kind_field.pointer] and "str" not in table.fields[kind_field.pointer]
    layout = check_compose.plan(resolve_contract(version, profile))
    assert layout is not None and len(table.required[""]) == 2 ** len(layout.required)
    assert all(len(table.required[pointer]) == 2 ** len(names) for pointer, names in layout.required_of.items())


CONTRACT_DEFECTS = [
    b'{"reward": "0.%d"}',
    b'{"reward": [%d], "mask_sample": "yes %d"}',
    b'{"reward": 1, "mask_sample": %d, "failure_kind": "Bad Kind %d"}',
    b'{"reward": 1, "failure_kind": %d, "instance_config": {"mask_sample": "n%d"}}',
    b'{"reward": 1, "failure_kind": "kind_%d", "instance_config": %d}',
    b'{"rewards": %d, "failure_reason": %d}',
    b'{"reward": null, "responses_create_params": %d, "response": {"output": "x%d"}}',
    b'{"reward": 1, "responses_create_params": {}, "response": {"output": [%d]}, "failure_kind": "x:%d"}',
]


@pytest.mark.parametrize(("version", "profile"), COMBOS)
def test_contract_defects_are_composed_without_the_reference(
    monkeypatch: pytest.MonkeyPatch, version: str, profile: Profile
) -> None:
    """Wrong types, malformed kinds and missing members: every finding comes from the model and the
    wording table, equal to the reference's, and the reference validator is never asked."""
    lines = [template % ((i,) * template.count(b"%d")) for i in range(40) for template in CONTRACT_DEFECTS]
    data = b"\n".join(lines) + b"\n"
    check_lines.clear_caches()
    slow = check_chunk(data, 1, "defects", CheckOptions(version, profile, max_findings=10**6, fast=False))
    check_lines.clear_caches()

    def refuse(*args: object) -> None:
        raise AssertionError(f"the reference was asked: {args!r}"[:300])

    monkeypatch.setattr(validation, "schema_findings", refuse)
    monkeypatch.setattr(check_reference, "reference_outcome", refuse)
    fast = check_chunk(data, 1, "defects", CheckOptions(version, profile, max_findings=10**6))
    assert fast == slow
    assert slow.invalid >= 4 * 40  # at least the reward and missing-member lines, at every version
    check_lines.clear_caches()


@pytest.mark.parametrize("parser", ["json", "orjson"])
@pytest.mark.parametrize("view", [False, True], ids=["bytes", "view"])
def test_contract_lines_alike_by_either_parser_from_bytes_or_views(
    monkeypatch: pytest.MonkeyPatch, parser: str, view: bool
) -> None:
    """check_compose parses a contract line with json (its first ORJSON_AFTER_BYTES) or orjson, from bytes
    (check_bytes) or from a view of the read buffer (files), terminator ("\n" or "\r\n") included."""
    monkeypatch.setattr(check_compose, "_loads", None if parser == "json" else orjson.loads)
    monkeypatch.setattr(check_compose, "_json_bytes", 0)
    lines = [template % ((i,) * template.count(b"%d")) for i in range(10) for template in CONTRACT_DEFECTS]
    data = b"".join(line + (b"\r\n" if n % 2 else b"\n") for n, line in enumerate(lines))
    options = CheckOptions(LATEST, "gym", max_findings=10**6)
    check_lines.clear_caches()
    fast = check_chunk(memoryview(data) if view else data, 1, "defects", options)
    check_lines.clear_caches()
    slow = check_chunk(data, 1, "defects", CheckOptions(LATEST, "gym", max_findings=10**6, fast=False))
    assert fast == slow and fast.invalid >= 40
    assert (check_compose._loads is None) == (parser == "json")  # json stayed json: under its threshold
    check_lines.clear_caches()


def test_a_wrong_wording_table_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The control of the two tests above: a table whose wording of one case drifted from the reference's
    (as it would if a schema changed without regenerating) makes check's report differ from the reference."""
    lines = [template % ((i,) * template.count(b"%d")) for i in range(5) for template in CONTRACT_DEFECTS]
    data = b"\n".join(lines) + b"\n"
    options = CheckOptions(LATEST, "core", max_findings=10**6)
    check_lines.clear_caches()
    slow = check_chunk(data, 1, "defects", CheckOptions(LATEST, "core", max_findings=10**6, fast=False))
    table = check_compose.wording(options.contract)
    assert table is not None
    ((rule, severity, parts, where),) = table.fields["/reward"]["str"]
    drifted = {
        **table.fields,
        "/reward": {**table.fields["/reward"], "str": ((rule, severity, (parts[0], " is no number"), where),)},
    }
    monkeypatch.setattr(check_compose, "wording", lambda contract: check_compose.Wording(table.required, drifted))
    fast = check_chunk(data, 1, "defects", options)
    assert fast.invalid == slow.invalid and fast != slow
    assert any("is no number" in f.finding.message for f in fast.findings)
    check_lines.clear_caches()


@pytest.mark.parametrize(("version", "profile"), [("1.2.0", "core"), ("1.0.0", "gym")])
def test_memo_stays_bounded(monkeypatch: pytest.MonkeyPatch, version: str, profile: Profile) -> None:
    # A new failure kind (or wrong reward string) on every line: past the cap the reference judges each line.
    monkeypatch.setattr(check_lines, "MEMO_ENTRIES", 5)
    check_lines.clear_caches()
    lines = [b'{"reward": 1, "failure_kind": "Kind_%d"}' % i for i in range(200)]
    lines += [b'{"reward": "r%d", "mask_sample": "m"}' % i for i in range(200)]
    lines += [b'{"reward": 1, "failure_kind": "Kind_%d"}' % i for i in range(10)]  # early keys again: hits
    data = b"\n".join(lines) + b"\n"
    options = CheckOptions(version, profile, max_findings=10**6)
    fast = check_chunk(data, 1, "adversarial", options)
    assert sum(len(memo) for memo in check_lines._OUTCOMES.values()) == 5
    slow = check_chunk(data, 1, "adversarial", CheckOptions(version, profile, max_findings=10**6, fast=False))
    assert fast == slow
    check_lines.clear_caches()


@pytest.mark.parametrize(("version", "profile"), COMBOS)
def test_every_line_same_as_reference(version: str, profile: Profile) -> None:
    statuses, others = fastpath.scan(CORPUS, resolve_contract(version, profile))
    assert len(statuses) == len(LINES)
    asked = {index: key for index, _, _, key in others}
    # A memo key must decide the reference's outcome: every line with the same key, same outcome.
    by_key: dict[bytes, tuple[Outcome, bytes]] = {}
    for index, line in enumerate(LINES):
        status = statuses[index]
        expected = reference_outcome(line.rstrip(b"\r\n"), resolve_contract(version, profile))  # as _lines reads it
        if status == fastpath.STATUS_BLANK:
            assert not line.strip(), line[:200]
        elif status in fastpath.CLEAN_STATUSES:
            masked, legacy, kind = fastpath.clean_outcome(status)
            assert expected.valid and not expected.findings, (line[:300], expected)
            assert (expected.masked, expected.legacy, expected.kind) == (masked, legacy, kind), line[:300]
        else:
            assert index in asked
            key = asked[index]
            if key is not None:
                first, first_line = by_key.setdefault(key, (expected, line))
                assert first == expected, (line[:300], first_line[:300])
                if key[:1] in (b"N", b"D"):  # text events: the one finding is the first JSON-rule defect
                    rule = "json-non-finite" if key[:1] == b"N" else "json-duplicate-key"
                    assert [f.rule for f in expected.findings] == [rule], line[:300]
                if key[:1] in b"NDSUBT":  # a text key: its finding, built from the key alone, is the reference's
                    assert status == fastpath.STATUS_TEXT, line[:300]
                    assert text_event_outcome(key) == expected, (line[:300], key)
                else:
                    assert key[:1] == b"C"
            if status == fastpath.STATUS_CONTRACT:
                # check.py has orjson build the document: exactly the strict parser's, types included (not
                # only SPEC 3.1's equal values: a finding's message names the type it saw, 1 or 1.0)
                parsed = parse_json(line)
                assert parsed.ok, line[:300]
                try:
                    built = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue  # lone surrogates: check.py hands these to the reference parser
                assert _typed(built) == _typed(parsed.document), line[:300]


@pytest.mark.parametrize(("version", "profile"), COMBOS)
def test_report_same_as_reference_only(version: str, profile: Profile) -> None:
    fast = check_chunk(CORPUS, 1, "corpus", CheckOptions(version, profile, max_findings=10**6))
    slow = check_chunk(CORPUS, 1, "corpus", CheckOptions(version, profile, max_findings=10**6, fast=False))
    assert fast == slow
    assert fast.lines == fast.valid + fast.invalid + fast.blank == len(LINES)
    assert fast.invalid > 1000


def _gen_corpus() -> Any:
    """benchmarks/gen_corpus.py (stdlib only), whose distinct-defect corpora the benchmark times."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "gen_corpus.py"
    spec = importlib.util.spec_from_file_location("gen_corpus", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Every invalid line's defect different: new wrong values, malformed and unregistered kinds, cut points,
# NaN places and duplicate names on every line (what the memo cannot share and the wording table must word right).
DISTINCT = {
    size: "".join(line + "\n" for line in _gen_corpus().generate(lines, size, 7, 0.2, "distinct")[0]).encode()
    for size, lines in (("small", 2500), ("large", 150))
}


@pytest.mark.parametrize(("version", "profile"), COMBOS)
@pytest.mark.parametrize("size", sorted(DISTINCT))
def test_distinct_defect_corpora_same_as_reference_only(version: str, profile: Profile, size: str) -> None:
    check_lines.clear_caches()
    data = DISTINCT[size]
    fast = check_chunk(data, 1, size, CheckOptions(version, profile, max_findings=10**6))
    slow = check_chunk(data, 1, size, CheckOptions(version, profile, max_findings=10**6, fast=False))
    assert fast == slow
    assert fast.invalid > 0 and len(fast.findings) > fast.lines // 20


# Names a repeated-name finding must word exactly as the reference: repr quoting (a quote, a DEL, a
# zero-width space, a lone backslash needs an escape in JSON and so goes to the reference), non-ASCII in
# two to four UTF-8 bytes, the empty name, escaped spellings of a plain name.
_EVENT_NAMES = [
    "a",
    "",
    "it's",
    "caf\u00e9",
    "\u4e2d\u6587",
    "\U0001f600",
    "del\x7f",
    "zw\u200bsp",
    "tab\\tname",
    'q\\"uote',
    "\\u0061",
    "b\\u00e9",
    "reward",
    "mask_sample",
    "x" * 300,
]
_TOKENS = ["NaN", "Infinity", "-Infinity"]


def _event_line(rng: random.Random) -> bytes:
    """One line whose defect is a NaN token or a repeated name (or both, or a syntax error first), somewhere."""
    name = rng.choice(_EVENT_NAMES)
    filler = {"reward": rng.choice(["1.0", "0", '"x"', "[1, 2]"]), "note": f'"{rng.choice(_EVENT_NAMES)}"'}
    members = [f'"{key}": {value}' for key, value in filler.items()]
    shape = rng.randrange(7)
    token = rng.choice(_TOKENS)
    if shape == 0:  # a NaN token at the top level
        members.insert(rng.randrange(len(members) + 1), f'"n{rng.randrange(99)}": {token}')
    elif shape == 1:  # in a nested array
        members.append(f'"deep": {{"list": [1, {{"v": [{token}, 2]}}]}}')
    elif shape == 2:  # a repeated name at the top level
        members += [f'"{name}": 1', f'"{name}": {rng.choice(["2", token, "{}"])}']
    elif shape == 3:  # a repeated name in a nested object, after or before a NaN token elsewhere
        nested = f'"inner": {{"{name}": [], "k": {{}}, "{name}": null}}'
        members.insert(rng.randrange(len(members) + 1), nested)
        members.insert(rng.randrange(len(members) + 1), f'"t": {token}')
    elif shape == 4:  # a token glued to junk, or a syntax error before the event
        members += [f'"g": {token}x', f'"{name}": 1', f'"{name}": 2']
        if rng.random() < 0.5:
            members.insert(0, '"bad": tru')
    elif shape == 5:  # same name in sibling objects is no defect; then a real repeat
        members += [f'"s1": {{"{name}": 1}}', f'"s2": {{"{name}": 2}}', f'"{name}": 0', f'"{name}": 0']
    else:  # the event, then a byte that is not UTF-8 (the whole line is json-syntax)
        members += [f'"{name}": 1', f'"{name}": 2', '"z": "\xff"']
    text = "{" + ", ".join(members) + "}"
    raw = text.encode("utf-8")
    return raw.replace("\xff".encode(), b"\xff") if shape == 6 else raw


EVENT_LINES = [_event_line(random.Random(seed)) for seed in range(3000)]


def test_text_event_findings_worded_as_the_reference() -> None:
    """Every line the pre-check keys with a NaN token or a repeated name: the outcome built from the key is
    the reference's, finding for finding (rule, severity, message, pointer)."""
    statuses, others = fastpath.scan(b"\n".join(EVENT_LINES) + b"\n", resolve_contract(LATEST, "core"))
    built: Counter[bytes] = Counter()
    for index, _, _, key in others:
        expected = reference_outcome(EVENT_LINES[index], resolve_contract(LATEST, "core"))
        if key is not None and statuses[index] == fastpath.STATUS_TEXT:
            outcome = text_event_outcome(key)
            if outcome is not None:
                assert outcome == expected, (EVENT_LINES[index][:300], outcome, expected)
                built[key[:1]] += 1
    # The direct path was taken for both kinds, non-ASCII and repr-quoted names included.
    assert built[b"N"] > 500 and built[b"D"] > 500, built
    names = {key[1:].decode() for _, _, _, key in others if key is not None and key[:1] == b"D"}
    assert {"it's", "caf\u00e9", "\U0001f600", "del\x7f", "zw\u200bsp", ""} <= names, names


def test_a_reworded_text_event_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above fails if the direct path words a finding differently from the reference."""
    import verify_contract.check._text_events as events

    original = events.duplicate_name_finding
    # The reference's message without repr's quotes around the name: a plausible slip.
    monkeypatch.setattr(
        events,
        "duplicate_name_finding",
        lambda name: original(name).replace(message=original(name).message[: -len(repr(name))] + name),
    )
    data = b"\n".join(EVENT_LINES) + b"\n"
    check_lines.clear_caches()
    fast = check_chunk(data, 1, "events", CheckOptions(LATEST, "core", max_findings=10**6))
    slow = check_chunk(data, 1, "events", CheckOptions(LATEST, "core", max_findings=10**6, fast=False))
    assert fast != slow
    check_lines.clear_caches()


@pytest.mark.parametrize(("version", "profile"), COMBOS)
def test_text_event_corpus_same_as_reference_only(version: str, profile: Profile) -> None:
    check_lines.clear_caches()
    data = b"\n".join(EVENT_LINES) + b"\n"
    fast = check_chunk(data, 1, "events", CheckOptions(version, profile, max_findings=10**6))
    slow = check_chunk(data, 1, "events", CheckOptions(version, profile, max_findings=10**6, fast=False))
    assert fast == slow
    assert fast.invalid == len(EVENT_LINES)


def _typed(value: object) -> object:
    """A value with its JSON types made explicit, so that 1 and 1.0 and True differ."""
    if isinstance(value, dict):
        return ("object", [(k, _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("array", [_typed(v) for v in value])
    return (type(value).__name__, value)


@pytest.mark.parametrize(("version", "profile"), COMBOS)
def test_model_corpus_same_as_reference(version: str, profile: Profile) -> None:
    """Lines generated from the version's resolved model: a field nobody wrote a line for is exercised."""
    lines = model_lines(contract_model(version), profile)
    data = b"\n".join(lines) + b"\n"
    statuses, _ = fastpath.scan(data, resolve_contract(version, profile))
    for status, line in zip(statuses, lines, strict=True):
        if status in fastpath.CLEAN_STATUSES:
            expected = reference_outcome(line, resolve_contract(version, profile))
            assert expected.valid and not expected.findings, line
            assert (expected.masked, expected.legacy, expected.kind) == fastpath.clean_outcome(status), line
    options = CheckOptions(version, profile, max_findings=10**6)
    check_lines.clear_caches()
    fast = check_chunk(data, 1, "model", options)
    slow = check_chunk(data, 1, "model", CheckOptions(version, profile, max_findings=10**6, fast=False))
    assert fast == slow
    assert fast.invalid > len(contract_model(version).fields_of(profile))  # every field has violations
    assert sum(statuses.count(s) for s in fastpath.CLEAN_STATUSES) > 0


# The pre-check's property: where the model holds a construct it cannot prove, the line goes to the
# reference (or the whole version does), never "clean". Synthetic models: the latest one with one
# field's schema (or the document's) changed.
CONSTRAINTS = [
    {"minimum": 1},
    {"maximum": 0},
    {"exclusiveMinimum": 0},
    {"multipleOf": 2},
    {"maxLength": 0},
    {"minLength": 50},
    {"pattern": "^z$"},
    {"pattern": "^[a-z]+$"},  # not the failure-kind grammar the C code implements
    {"enum": ["nothing"]},
    {"const": "nothing"},
    {"format": "email"},
    {"not": {}},
    {"x-future-keyword": True},
    {"additionalProperties": False},
    {"minProperties": 9},
    {"items": {"type": "string"}},
]


def _synthetic(change: Callable[[dict[str, Any]], None]) -> ResolvedModel:
    data = copy.deepcopy(contract_model(LATEST).raw)
    change(data)
    return model_from_data(data)


def _scan(model: ResolvedModel, profile: Profile, lines: list[bytes]) -> bytes:
    table = fastpath.build_field_table(model, profile)
    statuses, _ = fastpath.scan_with(b"\n".join(lines) + b"\n", table, fastpath.kinds_table(model))
    return statuses


@pytest.mark.parametrize("constraints", CONSTRAINTS, ids=lambda c: next(iter(c)))
@pytest.mark.parametrize("pointer", ["/failure_reason", "/failure_kind", "/instance_config", "/reward"])
def test_unknown_constraints_go_to_the_reference(pointer: str, constraints: dict[str, Any]) -> None:
    def change(data: dict[str, Any]) -> None:
        field = next(f for f in data["fields"] if f["pointer"] == pointer)
        field["constraints"] = dict(constraints)

    model = _synthetic(change)
    lines = {
        "/failure_reason": [b'{"reward": 1, "failure_reason": "anything"}', b'{"reward": 1, "failure_reason": null}'],
        "/failure_kind": [b'{"reward": 1, "failure_kind": "agent_timeout"}', b'{"reward": 1, "failure_kind": "a:b"}'],
        "/instance_config": [b'{"reward": 1, "instance_config": {}}', b'{"reward": 1, "instance_config": null}'],
        "/reward": [b'{"reward": 1}', b'{"reward": 0.5}'],
    }[pointer]
    plain = _scan(contract_model(LATEST), "core", lines)
    assert all(s in fastpath.CLEAN_STATUSES for s in plain)  # clean without the constraint...
    statuses = _scan(model, "core", lines)
    assert all(s == fastpath.STATUS_CONTRACT for s in statuses), (constraints, statuses)  # ...not with it
    # and check, reading the same model, hands them to the composition or the reference: covered by the
    # change drill (tests/package/test_change_drill.py), which adds constrained fields to a real schema.


def test_a_new_field_of_unknown_type_declines_the_version() -> None:
    def change(data: dict[str, Any]) -> None:
        next(f for f in data["fields"] if f["pointer"] == "/failure_reason")["types"] = ["string", "decimal"]

    with pytest.raises(fastpath.Unsupported):
        fastpath.build_field_table(_synthetic(change), "core")


def test_a_constrained_document_declines_the_version() -> None:
    for constraints in ({"minProperties": 2}, {"dependentRequired": {"a": ["b"]}}):

        def change(data: dict[str, Any], constraints: dict[str, Any] = constraints) -> None:
            data["definitions"]["VerifyResponse"]["constraints"] = constraints

        with pytest.raises(fastpath.Unsupported):
            fastpath.build_field_table(_synthetic(change), "core")

    def closed(data: dict[str, Any]) -> None:
        data["definitions"]["GymVerifyResponse"]["additional_properties"] = False

    with pytest.raises(fastpath.Unsupported):
        fastpath.build_field_table(_synthetic(closed), "gym")


@pytest.mark.parametrize("profile", PROFILES)
def test_another_depth_limit_declines_the_version(profile: Profile) -> None:
    """The C scanner's nesting limit is compiled in (``_fastscan.MAX_DEPTH``): a model with another limit
    would have it call a too-deep line clean or refuse a legal one, so the pre-check declines the model."""
    assert fastpath.build_field_table(contract_model(LATEST), profile)  # the shipped limit is the C one
    for limit in (contract_model(LATEST).max_depth - 1, contract_model(LATEST).max_depth + 1):

        def change(data: dict[str, Any], limit: int = limit) -> None:
            data["limits"]["max_depth"] = limit

        with pytest.raises(fastpath.Unsupported, match="depth limit"):
            fastpath.build_field_table(_synthetic(change), profile)


def test_a_member_below_an_undeclared_parent_declines_the_version() -> None:
    def change(data: dict[str, Any]) -> None:
        field = copy.deepcopy(next(f for f in data["fields"] if f["pointer"] == "/failure_reason"))
        field.update(pointer="/nowhere/leaf", path=["nowhere", "leaf"], name="leaf", parent="/nowhere")
        data["fields"].append(field)

    with pytest.raises(fastpath.Unsupported):
        fastpath.build_field_table(_synthetic(change), "core")


def test_new_fields_are_judged_by_the_table() -> None:
    """A field the C code has never heard of: its type is enforced, required members are required."""

    def change(data: dict[str, Any]) -> None:
        field = copy.deepcopy(next(f for f in data["fields"] if f["pointer"] == "/mask_sample"))
        field.update(
            pointer="/retryable", path=["retryable"], name="retryable", required_in=[], profiles=["core", "gym"]
        )
        data["fields"].append(field)
        required = copy.deepcopy(field)
        required.update(pointer="/run_id", path=["run_id"], name="run_id", types=["string"], required_in=["gym"])
        data["fields"].append(required)

    model = _synthetic(change)
    core = _scan(model, "core", [b'{"reward": 1, "retryable": true}', b'{"reward": 1, "retryable": "yes"}'])
    assert core[0] in fastpath.CLEAN_STATUSES and core[1] == fastpath.STATUS_CONTRACT
    gym_line = b'{"reward": 1, "responses_create_params": {}, "response": {"output": []}%s}'
    gym = _scan(model, "gym", [gym_line % b', "run_id": "r1"', gym_line % b"", gym_line % b', "run_id": 5'])
    assert gym[0] in fastpath.CLEAN_STATUSES and gym[1] == gym[2] == fastpath.STATUS_CONTRACT
