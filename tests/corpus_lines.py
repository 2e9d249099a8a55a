"""Generated JSONL lines of every kind the checker must judge exactly as the reference does.

``kind_lines()`` gives hand-written lines, one or more per kind of defect (JSON text, contract fields,
profiles, warnings) plus their valid neighbours; ``mutated_lines()`` gives seeded random mutations of
valid lines (bytes flipped, inserted, deleted, lines cut), which find the cases nobody thought of.
"""

from __future__ import annotations

import json
import random
from typing import Any

from conftest import VECTORS


def gym_row(rng: random.Random, index: int, text_chars: int = 600) -> dict[str, Any]:
    words = [
        "the",
        "answer",
        "is",
        "boxed",
        "step",
        "so",
        "we",
        "compute",
        "x",
        "value",
        "é",
        "→",
        "中文",
        '"quoted"',
        "back\\slash",
        "tab\t",
        "new\nline",
    ]
    text = " ".join(rng.choice(words) for _ in range(text_chars // 5))
    tokens = [rng.randrange(0, 150000) for _ in range(rng.randrange(5, 60))]
    return {
        "responses_create_params": {"input": [{"role": "user", "content": text[:200]}], "temperature": 1.0},
        "response": {
            "id": f"resp_{index:08x}",
            "output": [
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                    "prompt_token_ids": tokens,
                    "generation_token_ids": tokens[::-1],
                    "generation_log_probs": [-rng.random() for _ in tokens[:10]] + [-1e-05, -2.5e-7],
                }
            ],
            "usage": {"input_tokens": 12, "output_tokens": len(tokens)},
        },
        "reward": rng.choice([0.0, 1.0, 1, 0, 0.25]),
        "mask_sample": False,
        "failure_kind": None,
        "failure_reason": None,
        "_ng_task_index": index,
    }


def _dump(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode("utf-8")


def _with(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    document = dict(base)
    for key, value in changes.items():
        if value is _DROP:
            document.pop(key, None)
        else:
            document[key] = value
    return document


_DROP = object()


def kind_lines() -> list[bytes]:
    rng = random.Random(7)
    base = gym_row(rng, 1)
    small = {"reward": 0.5, "mask_sample": False, "failure_kind": None, "failure_reason": None, "n": 3}
    lines: list[bytes] = []
    documents: list[dict[str, Any]] = [base, small]
    variants: dict[str, list[Any]] = {}
    for doc in (base, small):
        for key, values in {
            "reward": [_DROP, "0.5", True, False, None, [], {}, 1, -0.0, 10**30, 1e-300, 1.7976931348623157e308],
            "mask_sample": [_DROP, True, "yes", "false", 1, 0, None, []],
            "failure_kind": [
                _DROP,
                "agent_timeout",
                "judge_failed",
                "made_up_kind",
                "srv:kind",
                "srv:kind:extra",
                "Tool.Timeout",
                "tool.timeout",
                "tool_timeout\n",
                "",
                "a",
                "1abc",
                "abc:",
                ":abc",
                "é",
                42,
                ["agent_timeout"],
                {"k": 1},
                True,
            ],
            "failure_reason": [_DROP, "x" * 5000, 7, True, ["a"], {}],
            "instance_config": [
                _DROP,
                None,
                "cfg",
                [],
                {},
                {"mask_sample": True},
                {"mask_sample": False},
                {"mask_sample": "no"},
                {"mask_sample": None},
                {"mask_sample": 1},
                {"other": {"mask_sample": "nested is unknown"}},
            ],
            "responses_create_params": [_DROP, None, [], "p", {}],
            "response": [_DROP, None, [], {}, {"output": None}, {"output": {}}, {"output": []}, {"id": "x"}],
        }.items():
            documents.extend(_with(doc, **{key: value}) for value in values)
            variants[key] = values
        for top in (True, False, _DROP):
            for legacy in (True, False):
                documents.append(_with(doc, mask_sample=top, instance_config={"mask_sample": legacy, "x": 1}))
    for _i in range(600):  # several members wrong (or right) at once, in any key order
        doc = dict(rng.choice((base, small)))
        for key in rng.sample(sorted(variants), rng.randint(2, len(variants))):
            doc[key] = rng.choice(variants[key])
        keys = list(doc)
        rng.shuffle(keys)
        documents.append({k: doc[k] for k in keys if doc[k] is not _DROP})
    for kind in ("agent_timeout", "srv:kind"):
        for top in (True, False):
            documents.append({"reward": 0, "mask_sample": top, "failure_kind": kind})
            documents.append(
                {"reward": 0, "mask_sample": top, "failure_kind": kind, "instance_config": {"mask_sample": top}}
            )
    documents.append({"reward": 1, "deep": _nest(98)})
    documents.append({"reward": 1, "deep": _nest(99)})
    documents.append({"reward": 1, "deep": _nest(100)})
    lines.extend(_dump(d) for d in documents)
    lines.extend(_dump(d).replace(b'": ', b'":').replace(b", ", b",") for d in documents[:40])  # compact
    lines.extend(json.dumps(d, indent=None, ensure_ascii=True).encode() for d in documents[:40])  # \u escapes
    lines.extend(
        [
            # JSON text defects and edge cases
            b'{"reward": NaN}',
            b'{"reward": Infinity}',
            b'{"reward": -Infinity}',
            b'{"reward": 1, "x": NaN}',
            b'{"reward": 1e400}',
            b'{"reward": -1e400}',
            b'{"reward": 1, "x": 1E400}',
            b'{"reward": 1, "x": 2e308}',
            b'{"reward": 1, "x": 1e308}',
            b'{"reward": 1, "x": 1.8e308}',
            b'{"reward": 1, "x": 17976931348623157e292}',
            b'{"reward": 1, "x": 0.00001e310}',
            b'{"reward": 1, "x": 1e-400}',
            b'{"reward": 1, "x": 1e00000000000000000002}',
            b'{"reward": 1, "x": 123456789012345678901234567890}',
            b'{"reward": 1, "x": 1' + b"0" * 400 + b"}",
            b'{"reward": 1, "x": 1' + b"0" * 400 + b".0}",
            b'{"reward": 1, "x": 1' + b"0" * 5000 + b"}",
            b'{"reward": 1' + b"0" * 30 + b', "mask_sample": "x"}',
            b'{"reward": 1, "x": -}',
            b'{"reward": 01}',
            b'{"reward": 1.}',
            b'{"reward": .5}',
            b'{"reward": +1}',
            b'{"reward": -0}',
            b'{"reward": 1E+2}',
            b'{"reward": 0.1e-3}',
            b'{"reward": 1, "reward": 1}',
            b'{"reward": "x", "reward": 1}',
            b'{"reward": 1, "a": {"b": 1, "b": 2}}',
            b'{"reward": 1, "a": [{"b": 1}, {"b": 1}]}',
            b'{"reward": 1, "a": [{"b": 1, "c": {"b": 1}, "b": 3}]}',
            b'{"reward": 1, "a": 1, "\\u0061": 2}',
            b'{"rew\\u0061rd": 1}',
            b'{"reward": 1, "k\\"ey": 1, "k\\"ey": 2}',
            b'{"reward": 1, "failure_kind": "agent\\u005ftimeout"}',
            b'{"reward": 1, "x": "\\ud800"}',
            b'{"reward": 1, "x": "\\ud83d\\ude00"}',
            b'{"reward": 1, "x": "\\ud83d"}',
            b'{"reward": 1, "x": "\\ude00"}',
            b'{"reward": 1, "x": "\\ud83dx"}',
            b'{"reward": 1, "x": "\\ud83d\\ud83d\\ude00"}',
            b'{"reward": 1, "x": "\\ud83d\\u0041"}',
            b'{"reward": 1, "x": "a\\uDBFF\\uDFFFb"}',
            b'{"reward": 1, "x": "\\uD800\\uDC00", "y": "\\u00e9\\u4e2d"}',
            b'{"reward": 1, "x": 1' + b"0" * 307 + b"}",
            b'{"reward": 1, "x": -1' + b"0" * 308 + b"}",
            b'{"reward": 1, "x": 17976931348623158' + b"0" * 292 + b"}",
            b'{"reward": 1, "x": 1' + b"0" * 309 + b"}",
            b'{"reward": 1' + b"0" * 310 + b"}",
            b'{"reward": 1, "x": "\\x"}',
            b'{"reward": 1, "x": "\\u12"}',
            b'{"reward": 1, "x": "a\tb"}',
            b'{"reward": 1, "x": "a\x00b"}',
            b'{"reward": 1, "x": "a\x7fb"}',
            b'{"reward": 1, "x": "\xff"}',
            b'{"reward": 1, "x": "\xc0\x80"}',
            b'{"reward": 1, "x": "\xed\xa0\x80"}',
            b'{"reward": 1, "x": "\xf4\x90\x80\x80"}',
            b'{"reward": 1, "x": "\xe2\x82"}',
            b'{"reward": 1, "\xff": 1}',
            b'{"reward": 1}\xff',
            b"\xef\xbb\xbf" + b'{"reward": 1}',
            b'{"reward": 1}\r',
            b'\t {"reward": 1} \t',
            b'{"reward": 1}\x0b',
            b'{"reward": 1}\x0c',
            b"",
            b"   ",
            b"\t\r",
            b"\x0b\x0c",
            b'{"reward": 1',
            b'{"reward": 1, "x": "abc',
            b'{"reward": 1,',
            b'{"reward": 1,}',
            b'{"reward": [1,]}',
            b"{'reward': 1}",
            b'{"reward": 1} {"reward": 2}',
            b'{"reward": 1}, {"reward": 2}',
            b"[]",
            b'[{"reward": 1}]',
            b"1",
            b'"reward"',
            b"null",
            b"true",
            b"{}",
            b'{"reward": tru}',
            b'{"reward": nul}',
            b'{"reward": 1, "x": [1 2]}',
            b'{"reward": 1 "x": 2}',
            b'{"reward" 1}',
            b'{"reward": 1, 2: 3}',
            b'{"reward": 1, "x": {"a" : 1 , "b":[ ] ,"c":{ }}}',
            b"[" * 101 + b"]" * 101,
            b'{"reward": 1, "deep": ' + b"[" * 10000 + b"]" * 10000 + b"}",
            b'{"reward": 1, "deep": ' + b'{"a":' * 150 + b"1" + b"}" * 150 + b"}",
            b'{"reward": 1, "many": {' + b",".join(b'"k%d": %d' % (i, i) for i in range(300)) + b"}}",
            b'{"reward": 1, "many": {' + b",".join(b'"k%d": %d' % (i % 299, i) for i in range(300)) + b"}}",
            bytes(range(256)).replace(b"\n", b""),
        ]
    )
    lines.extend(event_lines())
    lines.extend(memo_lines())
    lines.extend(v.text.encode("utf-8") for v in VECTORS if "\n" not in v.text)
    return lines


def event_lines() -> list[bytes]:
    """The first JSON-rule defect in the reference's order: json calls parse_constant at a NaN/Infinity
    token and object_pairs_hook when an object closes; UTF-8 is checked on the whole text first."""
    return [
        b'{"a": {"b": 1, "b": 2}, "c": NaN}',  # the inner object closes first: duplicate
        b'{"a": {"b": 1, "b": 2, "c": NaN}}',  # NaN before the object closes
        b'{"b": 1, "b": 2, "c": NaN}',
        b'{"b": 1, "c": NaN, "b": 2}',
        b'{"a": [{"b": 1, "b": 2}, NaN]}',
        b'{"a": [NaN, {"b": 1, "b": 2}]}',
        b'{"a": [1, 2.5, -Infinity]}',
        b'{"a": [1, -Infinityx]}',
        b'{"a": [1, Infinity, 3]}',
        b'{"a": [1, -Inf]}',
        b'{"reward": [1, 2, NaN]}',
        b'{"reward": NaN',  # cut after the token: the token still comes first
        b'{"reward": NaN, ',
        b'{"reward": NaNx}',
        b'{"reward": Nan}',
        b'{"reward": -NaN}',
        b'{"reward": -Inf}',
        b'{"reward": Infinit}',
        b'{ "reward" : NaN }',
        b'{"reward":\tNaN}',
        b'{"reward":\rNaN}',
        b'{"reward": 1}NaN',
        b"{NaN: 1}",
        b"NaN",
        b'{"reward": 1, "x": NaN, "y": "\xff"}',  # invalid UTF-8 anywhere comes first
        b'{"reward": 1, "x": NaN, "y": "\xe2\x82"}',
        b'{"reward": 1, "x": NaN, "y": "\xc3\xa9\xe4\xb8\xad"}',
        b'{"reward": 1, "a": 1, "a": 2, "y": "\xff"}',
        b'{"reward": 1, "a": 1, "a": 2}\xff',
        b'{"reward": 1, "a": 1, "a": 2}\xc3\xa9',
        b'{"reward": 1, "reward": 2, "x": ',  # the object never closes: a syntax error
        b'{"reward": 1, "reward": 2',
        b'{"reward": 1, "reward": 2} extra',
        b'{"reward": 1, "reward": 2}, {}',
        b'{"reward": 1, "reward": 2}   ',
        b'{"a": 1, "a": 2, "x": 1e400}',
        b'{"a": {"b": 1, "b": 2}, "x": 1e400}',
        b'{"x": 1e400, "a": {"b": 1, "b": 2}}',
        b'{"x": 1e400, "y": NaN}',
        b'{"a": "\\ud800", "b": NaN}',
        b'{"a": "\\ud800", "b": 1, "b": 2}',
        b'{"a": 1, "a": 2, "\\u0061": 3}',
        b'{"a": 1, "b": 1, "b": 2, "a": 2}',
        b'{"a": 1, "b": 1, "a": 2, "b": 2}',
        b'{"a": 1, "a": 2, "a": 3}',
        b'{"": 1, "": 2}',
        b'{"\xc3\xa9": 1, "\xc3\xa9": 2}',
        b'{"k\'ey": 1, "k\'ey": 2}',
        b'{"k\'e\\"y": 1, "k\'e\\"y": 2}',
        b'{"' + b"k" * 600 + b'": 1, "' + b"k" * 600 + b'": 2}',
        b'{"' + b"k" * 20 + b'": 1, "' + b"k" * 20 + b'": 2}',
        b'{"abcdefgh1": 1, "abcdefgh2": 2, "abcdefgh1": 3}',
        b'{"reward": 1, "deep": ' + b'{"a": ' * 99 + b'{"b": 1, "b": 2}' + b"}" * 99 + b"}",
        b'{"reward": 1, "deep": ' + b"[" * 98 + b"NaN" + b"]" * 98 + b"}",
        b'{"reward": 1, "deep": ' + b"[" * 99 + b"NaN" + b"]" * 99 + b"}",
        b'{"reward": 1, "deep": ' + b"[" * 200 + b"NaN" + b"]" * 200 + b"}",
        b'{"reward": 1, "many": {' + b",".join(b'"k%d": %d' % (i, i) for i in range(300)) + b', "k1": NaN}}',
        b'{"reward": 1, "x": "\\ud83d\\ude00", "y": NaN}',
        b'{"reward": 1, "x": 1' + b"0" * 30 + b', "y": NaN}',
        b'{"reward": "0.5", "reward": 1}',
        b'{"reward": 1, "mask_sample": "yes", "failure_kind": "Tool.Timeout", "failure_kind": null}',
        b'{"reward": "x", "mask_sample": NaN}',
    ]


def memo_lines() -> list[bytes]:
    """Lines that share a memo key with others, or that must not get one."""
    rng = random.Random(11)
    lines: list[bytes] = []
    for i in range(40):
        extra = b', "n": %d, "s": "%s"' % (i, b"x" * rng.randrange(0, 30))
        lines.append(b'{"reward": "0.5", "mask_sample": false' + extra + b"}")
        lines.append(b'{"reward": "0.5",  "mask_sample":false' + extra + b"}")  # other bytes, same meaning
        lines.append(b'{"reward": 0.5, "mask_sample": "yes"' + extra + b"}")
        lines.append(b'{"reward": 1, "failure_kind": "Tool.Timeout", "failure_reason": 7' + extra + b"}")
        lines.append(b'{"reward": 1, "failure_kind": "made_up_%d"' % (i % 3) + extra + b"}")
        lines.append(b'{"reward": 1, "instance_config": {"mask_sample": true, "i": %d}' % i + extra + b"}")
        lines.append(b'{"reward": %d, "reward": "x"' % i + extra + b"}")
        lines.append(b'{"reward": NaN' + extra + b"}")
        lines.append(b'{"reward": 1' + extra + b', "x": -Infinity}')
    for text in (b'""', b'"0.5"', b'"it\'s"', b'"say \\"hi\\""', b'"\\u00e9\\n\\t"', b'"\xc3\xa9\xe4\xb8\xad"'):
        for rest in (b"", b', "mask_sample": "yes"', b', "failure_kind": 3, "n": [1, 2]'):
            lines.append(b'{"reward": ' + text + rest + b"}")  # the string reward's finding, filled in
    lines += [
        b'{"reward": "\\ud83d\\ude00"}',
        b'{"reward": "\\u0000probe"}',
        b'{"reward": "' + b"\\u00e9" * 200 + b'"}',
        b'{"reward": 1, "mask_sample": 123456789012345678901234567890}',  # orjson would read a float
        b'{"reward": 1, "mask_sample": 123456789012345678901234567890, "n": 1}',
        b'{"reward": 1, "mask_sample": 12345678901234567890123456789.0}',
        b'{"reward": 123456789012345678901234567890, "mask_sample": "x"}',
        b'{"reward": 123456789012345678901234567890, "mask_sample": "x", "n": 2}',
        b'{"reward": 1, "mask_sample": 1}',
        b'{"reward": 1, "mask_sample": 1.0}',
        b'{"reward": 1, "mask_sample": 1e0}',
        b'{"reward": 1, "failure_kind": "Tool\\u002eTimeout"}',
        b'{"reward": 1, "failure_kind": "agent\\u005ftimeout", "mask_sample": true}',
        b'{"reward": 1, "failure_kind": "\\u00e9"}',
        b'{"reward": "' + b"x" * 600 + b'"}',  # too long for a key
        b'{"reward": "' + b"x" * 600 + b'", "n": 1}',
        b'{"reward": 1, "failure_reason": {"a": [' + b"1, " * 300 + b"1]}}",
        b'{"reward": 1, "instance_config": {"mask_sample": {"a": 1}}}',
        b'{"reward": 1, "instance_config": {"mask_sample": {"a": 1}, "mask_sample": 2}}',
        b'{"reward": 1, "response": {"output": {}}, "responses_create_params": []}',
        b'{"reward": 1, "response": {"output": []}, "responses_create_params": {"a": 1}}',
        b'{"reward": 1, "response": {"output": [], "output2": 1}, "responses_create_params": {}, "mask_sample": 0}',
        b'{"reward": 1, "response": {"x": {"output": 1}}, "responses_create_params": {}}',
        b'{"reward": 1, "response": "r", "responses_create_params": "p"}',
    ]
    return lines


def _nest(levels: int) -> Any:
    value: Any = 1
    for i in range(levels):
        value = [value] if i % 2 else {"n": value}
    return value


_SPECIALS = [*list(b'{}[]",:\\0123456789eE.-+tfnul \t\r\x00\x1f\x80\xbf\xc3\xe2\xed\xf0\xff'), ord("a")]


def mutated_lines(count: int, seed: int = 20261129) -> list[bytes]:
    rng = random.Random(seed)
    bases = [_dump(gym_row(rng, i, 120)) for i in range(8)] + [
        b'{"reward":1,"mask_sample":true,"failure_kind":"agent_timeout","failure_reason":null,'
        b'"instance_config":{"mask_sample":true},"responses_create_params":{},"response":{"output":[]}}',
        b'{"reward": 0.5, "failure_kind": "srv:kind", "x": [1, 2.5e-3, "s", null, true, {"y": {}}]}',
    ]
    out: list[bytes] = []
    for _ in range(count):
        line = bytearray(rng.choice(bases))
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            action = rng.randrange(5)
            pos = rng.randrange(len(line) + 1)
            if action == 0 and line:
                del line[min(pos, len(line) - 1)]
            elif action == 1:
                line.insert(pos, rng.choice(_SPECIALS))
            elif action == 2 and line:
                line[min(pos, len(line) - 1)] = rng.choice(_SPECIALS)
            elif action == 3:
                line = line[:pos]
            else:
                start = rng.randrange(len(line) + 1)
                line[pos:pos] = line[start : start + rng.randrange(1, 40)]
        out.append(bytes(line).replace(b"\n", b" "))
    return out


# Lines generated from a resolved contract model: every declared field x values of each wrong JSON type,
# of each allowed type, and at both sides of the boundary of each constraint it has, inside a valid
# document of the profile (and without each required member). A field added to the schema is exercised
# here without anyone writing a line for it.

_ANY_TYPE = {
    "null": [None],
    "boolean": [True, False],
    "integer": [0, 7, -3],
    "number": [0.5, -2.25, 1e300],
    "string": ["", "x", "Mixed Case", "a:b", "é"],
    "array": [[], [1, "a", None], [{"k": []}]],
    "object": [{}, {"k": 1}],
}


def _valid_value(field: Any, children: dict[str, list[Any]], profile: str) -> Any:
    """A value of the field's first allowed type, with the members the profile requires."""
    kind = field.types[0]
    if kind == "object":
        return {
            c.name: _valid_value(c, children, profile)
            for c in children.get(field.pointer, [])
            if profile in c.required_in
        }
    constraints = field.constraints
    if kind in ("number", "integer"):
        low = constraints.get("minimum", constraints.get("exclusiveMinimum", 0))
        return low + 1 if "exclusiveMinimum" in constraints else low
    if kind == "string" and field.enum_definition is None and "pattern" in constraints:
        return next((s for s in _pattern_candidates() if _matches(constraints["pattern"], s)), "")
    return {"null": None, "boolean": False, "array": [], "string": ""}.get(kind)


def _pattern_candidates() -> list[str]:
    return ["abc", "a", "abc_def", "srv:kind", "", "Abc", "1abc", "abc:", "a b", "abc\n", "é", "x" * 40]


def _matches(pattern: str, value: str) -> bool:
    import regress

    return regress.Regex(pattern).find(value) is not None


def _boundary_values(field: Any, registered: list[str]) -> list[Any]:
    """Values at and across each constraint of the field."""
    constraints = field.constraints
    values: list[Any] = []
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if key in constraints:
            edge = constraints[key]
            values += [edge, edge - 1, edge + 1, edge - 0.5, edge + 0.5, float(edge)]
    if "multipleOf" in constraints:
        step = constraints["multipleOf"]
        values += [step, step * 3, step * 1.5]
    for key in ("maxLength", "minLength"):
        if key in constraints:
            size = constraints[key]
            values += ["a" * size, "a" * max(size - 1, 0), "a" * (size + 1), "é" * size, "é" * (size + 1)]
    if "pattern" in constraints:
        values += _pattern_candidates() + registered[:3] + [k + "x" for k in registered[:1]]
    if "enum" in constraints:
        values += [*constraints["enum"], "not-a-member"]
    if "const" in constraints:
        values += [constraints["const"], "not-the-const"]
    for key in ("maxItems", "minItems"):
        if key in constraints:
            size = constraints[key]
            values += [[0] * size, [0] * max(size - 1, 0), [0] * (size + 1)]
    if "items" in constraints:
        values += [[], ["s"], [1], [None], ["s", 2], [[]], [{}]]
    return values


def model_lines(model: Any, profile: str) -> list[bytes]:
    """Lines for one profile of one version's model (``verify_contract.contract._model.ResolvedModel``)."""
    fields = model.fields_of(profile)
    children: dict[str, list[Any]] = {}
    for field in fields:
        children.setdefault(field.parent, []).append(field)
    root = [f for f in fields if not f.parent]
    base = {f.name: _valid_value(f, children, profile) for f in root if profile in f.required_in}
    kinds = model.failure_kinds
    registered = [k["id"] for k in kinds["registered"]] if kinds else []

    def placed(path: tuple[str, ...], value: Any) -> dict[str, Any]:
        document = json.loads(json.dumps(base))
        container = document
        for part in path[:-1]:
            if not isinstance(container.get(part), dict):
                container[part] = {}
            container = container[part]
        if value is _DROP:
            container.pop(path[-1], None)
        else:
            container[path[-1]] = value
        return document

    lines = [_dump(base), _dump({**base, "extra_member": {"free": [1, 2]}})]
    for field in fields:
        values: list[Any] = [_DROP]
        for kind, samples in _ANY_TYPE.items():
            values += samples if kind in field.types else samples[:1]
        values += _boundary_values(field, registered)
        if "object" in field.types:
            nested = {c.name: _valid_value(c, children, profile) for c in children.get(field.pointer, [])}
            values += [nested, {**nested, "undeclared": 1}]
        for value in values:
            lines.append(_dump(placed(field.path, value)))
    for name in base:
        lines.append(_dump({k: v for k, v in base.items() if k != name}))
    # every pair of role values together (the semantic rules read them jointly)
    for role in ("mask", "legacy_mask"):
        field = model.role(role)
        if field is not None:
            lines += [_dump(placed(field.path, value)) for value in (True, False)]
    mask, legacy = model.role("mask"), model.role("legacy_mask")
    if mask is not None and legacy is not None:
        for top in (True, False, _DROP):
            for old in (True, False):
                document = placed(legacy.path, old)
                if top is not _DROP:
                    document[mask.path[0]] = top
                lines.append(_dump(document))
    return list(dict.fromkeys(lines))
