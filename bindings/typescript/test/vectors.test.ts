// Every conformance vector: verdict, effective mask and round trip equal the Python reference's.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { decode, effectiveMask, encode, MaskTypeError, parseJson } from "../src/index.js";
import { loadVectors, places } from "../src/vectors.js";
import { jsonEqual, sameKeyOrder, vectorsDir } from "./helpers.js";

const VECTORS = loadVectors(vectorsDir());

test("the vector corpus is loaded and non-trivial", () => {
  assert.ok(VECTORS.length >= 100, `only ${VECTORS.length} vectors`);
  assert.ok(VECTORS.some((v) => v.valid) && VECTORS.some((v) => !v.valid));
  assert.equal(new Set(VECTORS.map((v) => v.id)).size, VECTORS.length, "vector ids repeat");
});

for (const vector of VECTORS) {
  describe(`${vector.file} ${vector.id}`, () => {
    const options = { version: vector.contractVersion, profile: vector.profile };

    test("verdict equals the reference", () => {
      const decoded = decode(vector.text, options);
      assert.equal(decoded.ok, vector.valid, `${vector.description}: ${decoded.ok ? "accepted" : JSON.stringify(decoded.errors)}`);
      // Bytes in, same verdict: the UTF-8 path must not differ from the string path.
      assert.equal(decode(new TextEncoder().encode(vector.text), options).ok, vector.valid);
    });

    if (vector.pointers !== undefined) {
      test("errors are where the vector pins them (SPEC 8.1)", () => {
        const decoded = decode(vector.text, options);
        assert.deepEqual(decoded.ok ? [] : places(decoded.errors), vector.pointers);
      });
    }

    if (vector.valid) {
      test("effective mask equals the reference", () => {
        const decoded = decode(vector.text, options);
        assert.ok(decoded.ok);
        if (vector.effectiveMask === null) {
          assert.throws(() => effectiveMask(decoded.value), MaskTypeError);
        } else {
          assert.equal(effectiveMask(decoded.value), vector.effectiveMask);
        }
      });
    }

    if (vector.valid && vector.roundTrip) {
      test("decode then encode keeps every value, in order", () => {
        const decoded = decode(vector.text, options);
        assert.ok(decoded.ok);
        const text = encode(decoded.value, options);
        const original = parseJson(vector.text);
        const reread = parseJson(text);
        assert.ok(original.ok && reread.ok);
        assert.ok(jsonEqual(reread.value, original.value), `encoded ${text}`);
        if (vector.instance !== undefined) assert.ok(jsonEqual(reread.value, vector.instance));
        assert.ok(sameKeyOrder(reread.value, original.value), `key order changed: ${text}`);
      });
    }
  });
}

test("vectors pin missing members' pointers, top-level and nested", () => {
  const depths = new Set(VECTORS.flatMap((v) => v.pointers ?? []).filter((p) => p.rule.endsWith("-required")).map((p) => p.pointer.split("/").length - 1));
  assert.ok(depths.has(1) && depths.has(2), `depths ${[...depths].join(", ")}`);
});

test("the conformance runner prints one line per vector, agreeing with the reference", () => {
  const runner = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "dist", "conformance.js");
  const output = execFileSync(process.execPath, [runner, vectorsDir()], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const lines = output.trimEnd().split("\n").map((line) => JSON.parse(line) as { id: string; valid: boolean; pointers: unknown; effective_mask: boolean | null; encoded: unknown });
  assert.deepEqual(
    lines.map((line) => line.id),
    VECTORS.map((vector) => vector.id),
  );
  lines.forEach((line, i) => {
    const vector = VECTORS[i]!;
    assert.equal(line.valid, vector.valid, vector.id);
    assert.equal(line.effective_mask, vector.valid ? vector.effectiveMask : null, vector.id);
    if (vector.pointers !== undefined) assert.deepEqual(line.pointers, vector.pointers, vector.id);
    if (vector.valid && vector.roundTrip) {
      const original = parseJson(vector.text);
      assert.ok(original.ok && jsonEqual(line.encoded, original.value), vector.id);
    } else {
      assert.equal(line.encoded, null, vector.id);
    }
  });
});
