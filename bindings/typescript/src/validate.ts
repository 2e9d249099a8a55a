// Schema validation with ajv's Draft 2020-12 build, one compiled validator per version and profile.
// Schemas come only from the generated bundle: no loadSchema, so nothing is ever fetched.

import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

import { BUNDLED_SCHEMAS, CONTRACT_VERSIONS, type ContractVersion, type Profile, PROFILE_DEFINITIONS, PROFILES } from "./generated/index.js";
import { SCHEMA_RULES } from "./generated/schema_rules.js";
import { MAX_DEPTH } from "./json.js";
import { schemaRuleFindings } from "./rules.js";

export { type Profile, PROFILES } from "./generated/index.js";

export interface ValidationIssue {
  /** The SPEC rule id (section 8): an in-memory value JSON cannot carry (a function, `undefined`, a class
   * instance) breaks `json-syntax`, as its text would not be one JSON value. */
  readonly rule: string;
  /** JSON Pointer to the offending value ("" is the document); a missing member is at the pointer it would
   * have (SPEC 8.1). `pointer`, as every verify-contract tool names it in JSON. */
  readonly pointer: string;
  readonly message: string;
}

const ajv = new Ajv2020({
  allErrors: true,
  // Strict mode catches schema typos; union types (`["string", "null"]`) are deliberate in the contract.
  strict: true,
  allowUnionTypes: true,
  strictNumbers: true,
});
for (const version of CONTRACT_VERSIONS) ajv.addSchema(BUNDLED_SCHEMAS[version]);

const compiled = new Map<string, ValidateFunction>();

function validator(version: ContractVersion, profile: Profile): ValidateFunction {
  const key = `${version} ${profile}`;
  let validate = compiled.get(key);
  if (validate === undefined) {
    if (!CONTRACT_VERSIONS.includes(version)) throw new RangeError(`unknown contract version ${String(version)}`);
    if (!(PROFILES as readonly string[]).includes(profile)) throw new RangeError(`unknown profile ${String(profile)}`);
    const id = BUNDLED_SCHEMAS[version]["$id"] as string;
    validate = ajv.getSchema(`${id}#/$defs/${PROFILE_DEFINITIONS[profile]}`);
    if (validate === undefined) throw new Error(`no ${profile} profile in the ${version} schema`);
    compiled.set(key, validate);
  }
  return validate;
}

function pointer(path: readonly (string | number)[]): string {
  return path.map((part) => "/" + String(part).replaceAll("~", "~0").replaceAll("/", "~1")).join("");
}

/** Problems that make an in-memory value unrepresentable as contract JSON (ajv cannot see them). */
export function jsonValueIssues(value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const stack: { node: unknown; path: (string | number)[]; depth: number }[] = [{ node: value, path: [], depth: 0 }];
  while (stack.length > 0) {
    const { node, path, depth } = stack.pop()!;
    if (node === null || typeof node === "string" || typeof node === "boolean") continue;
    if (typeof node === "number") {
      if (!Number.isFinite(node)) issues.push({ rule: "json-non-finite", pointer: pointer(path), message: `${node} is not a JSON number` });
      continue;
    }
    if (typeof node !== "object") {
      issues.push({ rule: "json-syntax", pointer: pointer(path), message: `a ${typeof node} is not a JSON value` });
      continue;
    }
    if (depth + 1 > MAX_DEPTH) {
      issues.push({ rule: "json-too-deep", pointer: pointer(path), message: `the value nests deeper than ${MAX_DEPTH} levels` });
      continue;
    }
    if (Array.isArray(node)) {
      node.forEach((item, index) => stack.push({ node: item, path: [...path, index], depth: depth + 1 }));
      continue;
    }
    const proto: unknown = Object.getPrototypeOf(node);
    if (proto !== Object.prototype && proto !== null) {
      issues.push({ rule: "json-syntax", pointer: pointer(path), message: "only plain objects are JSON objects" });
      continue;
    }
    for (const [key, item] of Object.entries(node)) stack.push({ node: item, path: [...path, key], depth: depth + 1 });
  }
  return issues;
}

/** Validate an already-parsed value against one contract version and profile. Empty = valid. */
export function validate(value: unknown, version: ContractVersion, profile: Profile): ValidationIssue[] {
  const issues = jsonValueIssues(value);
  if (issues.length > 0) return issues;
  const check = validator(version, profile);
  if (check(value)) return [];
  const errors = check.errors ?? [];
  return schemaRuleFindings(value, errors, SCHEMA_RULES[version] ?? []).map(({ rule, pointer }) => {
    const related = errors.filter((e) => e.instancePath === pointer || `${e.instancePath}/` === pointer.slice(0, e.instancePath.length + 1));
    const detail = related.map((e) => `${e.keyword}: ${e.message ?? "invalid"}`).join("; ");
    return { rule, pointer, message: detail || "invalid" };
  });
}
