// The language-neutral conformance vectors (vectors/*.json, format in vectors/vectors.schema.json).

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

import type { ContractVersion } from "./generated/index.js";
import { type JsonValue, parseJson } from "./json.js";
import type { Profile } from "./validate.js";

export const VECTOR_SCHEMA_FILE = "vectors.schema.json";

export interface Vector {
  readonly file: string;
  readonly id: string;
  readonly description: string;
  readonly contractVersion: ContractVersion;
  readonly profile: Profile;
  readonly valid: boolean;
  readonly effectiveMask: boolean | null;
  readonly roundTrip: boolean;
  /** The document as a producer sends it: `instance_json`, else the serialization of `instance`. */
  readonly text: string;
  /** The parsed `instance`, for vectors that carry one. */
  readonly instance?: JsonValue;
  /** Where each error is (rule and JSON Pointer, sorted), for vectors that pin it (SPEC 8.1). */
  readonly pointers?: readonly Place[];
}

/** One error's rule id and JSON Pointer: a vector's `pointers` entry, and the runner's. */
export interface Place {
  readonly rule: string;
  readonly pointer: string;
}

interface RawVector {
  id: string;
  description: string;
  contract_version: ContractVersion;
  profile: Profile;
  valid: boolean;
  effective_mask: boolean | null;
  round_trip?: boolean;
  instance?: JsonValue;
  instance_json?: string;
  pointers?: Place[];
}

/** Each error's rule and pointer, sorted by rule then pointer (as a vector's `pointers`). */
export function places(errors: readonly { readonly rule: string; readonly pointer: string }[]): Place[] {
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return errors.map(({ rule, pointer }) => ({ rule, pointer })).sort((a, b) => order(a.rule, b.rule) || order(a.pointer, b.pointer));
}

/** Every vector of every file in `directory`, files sorted by name, tests in file order. */
export function loadVectors(directory: string): Vector[] {
  const files = readdirSync(directory)
    .filter((name) => name.endsWith(".json") && name !== VECTOR_SCHEMA_FILE)
    .sort();
  const vectors: Vector[] = [];
  for (const file of files) {
    // The strict parser, so `instance` numbers are read exactly as the binding reads documents.
    const parsed = parseJson(readFileSync(join(directory, file)));
    if (!parsed.ok) throw new Error(`${file}: ${parsed.problem.message}`);
    const tests = (parsed.value as unknown as { tests: RawVector[] }).tests;
    for (const raw of tests) {
      const hasInstance = raw.instance_json === undefined;
      vectors.push({
        file,
        id: raw.id,
        description: raw.description,
        contractVersion: raw.contract_version,
        profile: raw.profile,
        valid: raw.valid,
        effectiveMask: raw.effective_mask,
        roundTrip: raw.round_trip ?? raw.valid,
        text: hasInstance ? JSON.stringify(raw.instance) : (raw.instance_json as string),
        ...(hasInstance ? { instance: raw.instance as JsonValue } : {}),
        ...(raw.pointers !== undefined ? { pointers: raw.pointers } : {}),
      });
    }
  }
  return vectors;
}
