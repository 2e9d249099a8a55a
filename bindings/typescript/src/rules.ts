// Schema violations -> SPEC rule ids, by one generic function over the generated table
// (src/generated/schema_rules.ts, from generators/schema_rules.py): no location is typed here.

import type { ErrorObject } from "ajv/dist/2020.js";

import { FALLBACK_RULE } from "./generated/index.js";

/** One row of the generated table (format in generators/schema_rules.py). */
export interface SchemaRule {
  readonly pointer: string;
  readonly keyword: "required" | "type" | "value";
  readonly rule: string;
  readonly types?: readonly string[];
}

/** The rule of a violation at a location the table does not name (from the contract, generated). */
export { FALLBACK_RULE };

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "object" ? "object" : typeof value;
}

function escapePart(part: string): string {
  return part.replaceAll("~", "~0").replaceAll("/", "~1");
}

function valueAt(document: unknown, pointer: string): unknown {
  let node = document;
  for (const raw of pointer.split("/").slice(1)) {
    const part = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

export interface RuleFinding {
  readonly rule: string;
  /** JSON Pointer; a missing member's is the pointer it would have (SPEC 8.1). */
  readonly pointer: string;
}

/** One finding per violated location: a missing member, or a value whose type or content is wrong. */
export function schemaRuleFindings(document: unknown, errors: readonly ErrorObject[], table: readonly SchemaRule[]): RuleFinding[] {
  const row = (pointer: string, keyword: SchemaRule["keyword"]) => table.find((r) => r.pointer === pointer && r.keyword === keyword);
  const found: RuleFinding[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.keyword === "required") {
      const pointer = `${error.instancePath}/${escapePart((error.params as { missingProperty: string }).missingProperty)}`;
      if (seen.has(`required ${pointer}`)) continue;
      seen.add(`required ${pointer}`);
      found.push({ rule: row(pointer, "required")?.rule ?? FALLBACK_RULE, pointer });
      continue;
    }
    const pointer = error.instancePath;
    if (seen.has(pointer)) continue;
    seen.add(pointer);
    const value = valueAt(document, pointer);
    const typeRow = row(pointer, "type");
    const type = jsonType(value);
    const admitted = typeRow?.types?.includes(type) === true;
    if (typeRow !== undefined && !admitted) {
      found.push({ rule: typeRow.rule, pointer });
    } else {
      found.push({ rule: row(pointer, "value")?.rule ?? FALLBACK_RULE, pointer });
    }
  }
  return found;
}
