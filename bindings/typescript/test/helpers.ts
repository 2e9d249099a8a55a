// Shared by the tests: where the vectors are, and JSON value equality.

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** `$VERIFY_CONTRACT_VECTORS`, else the repository's vectors/ found by walking up from this file. */
export function vectorsDir(): string {
  const override = process.env["VERIFY_CONTRACT_VECTORS"];
  if (override) return override;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "vectors");
    if (existsSync(join(candidate, "vectors.schema.json"))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("no vectors/ directory above the tests; set VERIFY_CONTRACT_VECTORS");
    dir = parent;
  }
}

/** Equal as JSON values: numbers by value (0 and -0 alike), objects by key set, arrays in order. */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (typeof left === "number" && typeof right === "number") return left === right;
  if (Array.isArray(left) || Array.isArray(right)) {
    return Array.isArray(left) && Array.isArray(right) && left.length === right.length && left.every((item, i) => jsonEqual(item, right[i]));
  }
  if (typeof left === "object" && left !== null && typeof right === "object" && right !== null) {
    const leftKeys = Object.keys(left);
    const rightKeys = Object.keys(right);
    return (
      leftKeys.length === rightKeys.length &&
      leftKeys.every((key) => Object.hasOwn(right, key) && jsonEqual((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]))
    );
  }
  return left === right;
}

/** Same member order at every depth (as far as both values have the same shape). */
export function sameKeyOrder(left: unknown, right: unknown): boolean {
  if (Array.isArray(left) && Array.isArray(right)) return left.every((item, i) => sameKeyOrder(item, right[i]));
  if (typeof left === "object" && left !== null && typeof right === "object" && right !== null) {
    const leftKeys = Object.keys(left);
    const rightKeys = Object.keys(right);
    return (
      leftKeys.join("\u0000") === rightKeys.join("\u0000") &&
      leftKeys.every((key) => sameKeyOrder((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]))
    );
  }
  return true;
}
