// Focused tests of the binding's rules, beyond what the shared vectors show.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  BUNDLED_SCHEMAS,
  CONTRACT_VERSIONS,
  decode,
  effectiveMask,
  encode,
  EncodeError,
  FAILURE_KINDS,
  JUDGE_FAILED,
  LATEST_VERSION,
  MaskTypeError,
  parseJson,
  REGISTERED_FAILURE_KINDS,
  jsonValueIssues,
  validate,
  type FailureKindValue,
  type v1_0_0,
  type v1_2_0,
} from "../src/index.js";

function rule(text: string | Uint8Array): string | null {
  const parsed = parseJson(text);
  return parsed.ok ? null : parsed.problem.rule;
}

function nested(depth: number): string {
  // An object at depth 1 holding arrays down to `depth`.
  return `{"reward": 0.5, "x": ${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;
}

describe("strict JSON text", () => {
  test("duplicate member names at any depth", () => {
    assert.equal(rule('{"a": 1, "a": 1}'), "json-duplicate-key");
    assert.equal(rule('{"a": [{"b": 1}, {"c": 1, "c": 2}]}'), "json-duplicate-key");
    assert.equal(rule('{"a": {"b": 1}, "c": {"b": 1}}'), null, "the same name in sibling objects is fine");
    assert.equal(rule('{"\\u0061": 1, "a": 2}'), "json-duplicate-key", "names compare after unescaping");
  });

  test("non-finite numbers", () => {
    for (const text of ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", '{"r": [NaN]}']) assert.equal(rule(text), "json-non-finite", text);
    assert.equal(rule("1e-400"), null, "underflow to zero is finite");
  });

  test("nesting limit of 100, top-level object is depth 1", () => {
    assert.equal(rule(nested(100)), null);
    assert.equal(rule(nested(101)), "json-too-deep");
    assert.equal(rule(nested(100_000)), "json-too-deep", "no stack overflow");
  });

  test("syntax errors", () => {
    for (const text of ["", " ", "{", '{"a" 1}', "[1,]", "01", "1.", ".5", "-", "+1", "'a'", "tru", "nul", '"\\x"', '"\\u12"', '"a\tb"', "[1] [2]", "{}x"]) {
      assert.equal(rule(text), "json-syntax", JSON.stringify(text));
    }
  });

  test("a byte order mark is refused, as bytes and as text; invalid UTF-8 too", () => {
    assert.equal(rule(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])), "json-syntax");
    assert.equal(rule("\ufeff{}"), "json-syntax");
    assert.equal(rule(new Uint8Array([0x22, 0xff, 0x22])), "json-syntax");
    assert.equal(rule(new TextEncoder().encode('"caf\u00e9"')), null);
  });

  test("escapes decode, surrogate pairs join", () => {
    const parsed = parseJson('"caf\\u00e9 \\ud83d\\ude80 \\/\\n"');
    assert.ok(parsed.ok);
    assert.equal(parsed.value, "caf\u00e9 \u{1f680} /\n");
  });

  test("a __proto__ member is plain data, not a prototype", () => {
    const parsed = parseJson('{"__proto__": {"polluted": true}, "reward": 1}');
    assert.ok(parsed.ok);
    const value = parsed.value as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(Object.keys(value), ["__proto__", "reward"]);
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
    assert.equal(encode({ reward: 1, ...{} }), '{"reward":1}');
    const decoded = decode('{"reward": 1, "__proto__": {"a": 1}}');
    assert.ok(decoded.ok);
    assert.equal(encode(decoded.value), '{"reward":1,"__proto__":{"a":1}}');
  });
});

describe("decode", () => {
  test("unknown keys survive decode -> encode, in order, at every level", () => {
    const text =
      '{"zeta":1,"reward":0.5,"instance_config":{"mask_sample":true,"seed":7},"mask_sample":true,' +
      '"responses_create_params":{"input":[],"x-extra":{"deep":[1,2]}},"response":{"output":[],"id":"r1"},"alpha":null}';
    const decoded = decode(text, { version: "1.2.0", profile: "gym" });
    assert.ok(decoded.ok, JSON.stringify(decoded));
    assert.equal(decoded.value["zeta"], 1);
    assert.equal(encode(decoded.value, { version: "1.2.0", profile: "gym" }), text);
  });

  test("integer rewards stay integers", () => {
    const decoded = decode('{"reward": 1}');
    assert.ok(decoded.ok);
    assert.equal(encode(decoded.value), '{"reward":1}');
    const big = decode('{"reward": 100000000000000000000}');
    assert.ok(big.ok);
    assert.equal(encode(big.value), '{"reward":100000000000000000000}');
  });

  test("reward must be a number: booleans, strings and null are not", () => {
    for (const reward of ["true", "false", '"0.5"', "null", "[1]", "{}"]) {
      const decoded = decode(`{"reward": ${reward}}`);
      assert.equal(decoded.ok, false, reward);
      if (!decoded.ok) assert.equal(decoded.errors[0]?.pointer, "/reward");
    }
    assert.equal(decode("{}").ok, false, "reward is required");
  });

  test("mask_sample is a strict boolean", () => {
    for (const mask of ['"false"', "0", "1", "null"]) assert.equal(decode(`{"reward": 0, "mask_sample": ${mask}}`).ok, false, mask);
    assert.equal(decode('{"reward": 0, "instance_config": {"mask_sample": "yes"}}').ok, false);
  });

  test("failure_kind: registered, unknown well-formed and namespaced names decode; malformed ones do not", () => {
    for (const kind of [JUDGE_FAILED, "brand_new_kind", "myenv:sandbox_crashed"]) {
      const decoded = decode(`{"reward": 0, "failure_kind": ${JSON.stringify(kind)}}`);
      assert.ok(decoded.ok, kind);
      assert.equal(decoded.value.failure_kind, kind);
    }
    for (const kind of ["Judge_Failed", "a:b:c", "", "9lives", "my env"]) {
      assert.equal(decode(`{"reward": 0, "failure_kind": ${JSON.stringify(kind)}}`).ok, false, kind);
    }
  });

  test("versions and profiles select the schema", () => {
    const text = '{"reward": 1, "failure_kind": "Not Well Formed"}';
    assert.equal(decode(text, { version: "1.2.0" }).ok, false);
    assert.equal(decode(text, { version: "1.0.0" }).ok, true, "1.0.0 does not know failure_kind: an unknown key");
    assert.equal(decode('{"reward": 1}', { profile: "gym" }).ok, false);
    assert.throws(() => decode('{"reward": 1}', { version: "9.9.9" as "1.2.0" }), RangeError);
  });
});

describe("encode", () => {
  test("refuses what JSON or the contract cannot carry", () => {
    for (const value of [{ reward: Number.NaN }, { reward: Infinity }, { reward: 1, x: -Infinity }, { reward: 1, x: undefined }, { reward: 1, when: new Date(0) }]) {
      assert.throws(() => encode(value as v1_2_0.VerifyResponse, { version: "1.2.0" }), EncodeError, JSON.stringify(Object.keys(value)));
    }
    assert.throws(() => encode({ reward: true } as unknown as v1_2_0.VerifyResponse, { version: "1.2.0" }), EncodeError);
    assert.throws(() => encode({ reward: "0.5" } as unknown as v1_2_0.VerifyResponse, { version: "1.2.0" }), EncodeError);
  });

  test("builds a gym response", () => {
    const response: v1_2_0.GymVerifyResponse = {
      reward: 0,
      mask_sample: true,
      failure_kind: "sandbox:image_pull_failed",
      failure_reason: "image pull failed",
      responses_create_params: { input: [] },
      response: { output: [] },
    };
    // The version is named: the type is 1.2.0's, which a later version's gym profile need not accept.
    const text = encode(response, { version: "1.2.0", profile: "gym" });
    assert.equal(decode(text, { version: "1.2.0", profile: "gym" }).ok, true);
  });
});

describe("effectiveMask", () => {
  test("top-level OR legacy, absent is false", () => {
    assert.equal(effectiveMask({ reward: 1 }), false);
    assert.equal(effectiveMask({ reward: 1, mask_sample: true }), true);
    assert.equal(effectiveMask({ reward: 1, mask_sample: false, instance_config: { mask_sample: true } }), true);
    assert.equal(effectiveMask({ reward: 1, mask_sample: true, instance_config: { mask_sample: false } }), true);
    assert.equal(effectiveMask({ reward: 1, instance_config: null }), false);
    assert.equal(effectiveMask({ reward: 1, instance_config: { seed: 1 } }), false);
  });

  test("a present non-boolean is refused, never coerced", () => {
    for (const doc of [{ mask_sample: "false" }, { mask_sample: null }, { mask_sample: 0 }, { instance_config: { mask_sample: null } }, { instance_config: { mask_sample: "no" } }]) {
      assert.throws(() => effectiveMask({ reward: 1, ...doc }), MaskTypeError, JSON.stringify(doc));
    }
  });
});

describe("generated constants and types", () => {
  test("registered kinds are constants and match the latest schema's enum", () => {
    assert.equal(JUDGE_FAILED, "judge_failed");
    const schema = BUNDLED_SCHEMAS[LATEST_VERSION] as { $defs: { RegisteredFailureKind: { enum: string[] } } };
    assert.deepEqual([...REGISTERED_FAILURE_KINDS], schema.$defs.RegisteredFailureKind.enum);
    assert.deepEqual(
      FAILURE_KINDS.map((kind) => kind.id),
      [...REGISTERED_FAILURE_KINDS],
    );
    assert.deepEqual([...CONTRACT_VERSIONS], Object.keys(BUNDLED_SCHEMAS));
  });

  test("types: open enum, open objects, numbers only", () => {
    // Compile-time checks: tsc fails the build if any of these stops holding.
    const registered: FailureKindValue = JUDGE_FAILED;
    const unknown: FailureKindValue = "myenv:custom";
    const kind: v1_2_0.FailureKind = unknown;
    const withExtra: v1_2_0.VerifyResponse = { reward: 1, extra: { anything: [1] }, failure_kind: kind };
    const old: v1_0_0.VerifyResponse = { reward: 0 };
    // @ts-expect-error a boolean is not a reward
    const boolReward: v1_2_0.VerifyResponse = { reward: true };
    // @ts-expect-error a string is not a mask
    const stringMask: v1_2_0.VerifyResponse = { reward: 1, mask_sample: "yes" };
    // @ts-expect-error the gym profile needs response and responses_create_params
    const gym: v1_2_0.GymVerifyResponse = { reward: 1 };
    assert.ok([registered, withExtra, old, boolReward, stringMask, gym].every((value) => value !== undefined));
  });
});

describe("one finding per text and per violated rule", () => {
  test("the first defect in text order (SPEC 2.1)", () => {
    assert.equal(rule('{"reward": "", "reward": 1e400}'), "json-duplicate-key");
    assert.equal(rule('{"reward": 1e400, "reward": 1}'), "json-non-finite");
    assert.equal(rule('{"reward": 0NaN}'), "json-syntax", "NaN where no value may start");
    assert.equal(rule("-NaN"), "json-syntax");
    assert.equal(rule(`{"reward": 0, "x": ${"[".repeat(980)}1`), "json-too-deep");
  });

  test("a bad failure_kind is one error with its rule id", () => {
    const words = decode('{"reward": 0, "failure_kind": "Judge Failed"}');
    assert.ok(!words.ok);
    assert.deepEqual(words.errors.map((e) => [e.rule, e.pointer]), [["failure-kind-format", "/failure_kind"]]);
    const number = decode('{"reward": 0, "failure_kind": 5}');
    assert.ok(!number.ok);
    assert.deepEqual(number.errors.map((e) => e.rule), ["failure-kind-type"]);
    const gym = decode('{"response": []}', { version: "1.2.0", profile: "gym" }); // the members 1.2.0 requires
    assert.ok(!gym.ok);
    assert.deepEqual(gym.errors.map((e) => e.rule).sort(), ["gym-field-required", "gym-field-type", "reward-required"]);
  });
});

describe("an in-memory value JSON cannot carry", () => {
  test("breaks json-syntax, a catalogue rule, at its location", () => {
    const values = [() => 1, undefined, Symbol("s"), 1n, new Date(0), new Map()];
    for (const value of values) {
      const issues = validate({ reward: 1, x: [value] }, LATEST_VERSION, "core");
      assert.deepEqual(issues.map((issue) => [issue.rule, issue.pointer]), [["json-syntax", "/x/0"]], String(value));
    }
    assert.deepEqual(jsonValueIssues({ reward: 1, x: { y: null } }), []);
  });
});

describe("integers beyond 2^53 survive decode -> encode", () => {
  test("in reward and in unknown members", () => {
    const text = '{"reward":9007199254740993,"ids":[18446744073709551616,123456789012345678901234567890]}';
    const decoded = decode(text);
    assert.ok(decoded.ok);
    assert.equal(encode(decoded.value), text);
  });

  test("a double beyond 2^53 is written with its shortest digits, as Python writes it", () => {
    // JSON.stringify pads the digits with zeros: 170371814456193780000 is another integer to an exact reader.
    const text = '{"reward":-3.144806921388919e+20,"x":1.7037181445619378e+20,"w":1e+16,"v":9007199254740994.0}';
    const decoded = decode(text);
    assert.ok(decoded.ok);
    assert.equal(encode(decoded.value), text);
  });

  test("a changed value is written as the new number", () => {
    const decoded = decode('{"reward":9007199254740993}');
    assert.ok(decoded.ok);
    assert.equal(encode({ ...decoded.value, reward: 2 }), '{"reward":2}');
    const value = decoded.value as { reward: number };
    value.reward = 0.5;
    assert.equal(encode(decoded.value), '{"reward":0.5}');
  });
});
