// Conformance runner: `node dist/conformance.js <vectors dir>` prints one JSON line per vector,
// {"id", "valid", "rules", "pointers", "effective_mask", "encoded"} (rules: the error rule ids, sorted; pointers: each error's
// {"rule", "pointer"}, sorted by rule then pointer), in vector order (protocol: tests/bindings/test_cross_language.py).

import { decode, encode } from "./codec.js";
import { effectiveMask, MaskTypeError } from "./mask.js";
import { loadVectors, places, type Vector } from "./vectors.js";

function maskOrNull(document: Readonly<Record<string, unknown>>): boolean | null {
  try {
    return effectiveMask(document);
  } catch (error) {
    if (error instanceof MaskTypeError) return null;
    throw error;
  }
}

function line(vector: Vector): string {
  const options = { version: vector.contractVersion, profile: vector.profile };
  const decoded = decode(vector.text, options);
  if (!decoded.ok) {
    const rules = decoded.errors.map((error) => error.rule).sort();
    return JSON.stringify({ id: vector.id, valid: false, rules, pointers: places(decoded.errors), effective_mask: null, encoded: null });
  }
  const mask = maskOrNull(decoded.value);
  // The encoder's own text goes into the line unchanged, so what is checked is what a producer would send.
  const encoded = vector.roundTrip ? encode(decoded.value, options) : "null";
  return `{"id":${JSON.stringify(vector.id)},"valid":true,"rules":[],"pointers":[],"effective_mask":${JSON.stringify(mask)},"encoded":${encoded}}`;
}

function main(argv: readonly string[]): number {
  const directory = argv[0];
  if (directory === undefined || argv.length !== 1) {
    process.stderr.write("usage: node dist/conformance.js <vectors directory>\n");
    return 2;
  }
  const lines = loadVectors(directory).map(line);
  process.stdout.write(lines.join("\n") + "\n");
  return 0;
}

process.exitCode = main(process.argv.slice(2));
