// The effective mask: whether a consumer must treat the reward as not measuring the policy.

import { MASK_PATHS } from "./generated/index.js";

/** A mask field holds a non-boolean: the document is invalid and its mask must not be guessed. */
export class MaskTypeError extends TypeError {
  override readonly name = "MaskTypeError";
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The boolean at `path` (member names from the root); absent, or under a member that is not an object, is false. */
function flag(document: Readonly<Record<string, unknown>>, path: readonly string[]): boolean {
  let holder = document;
  for (const name of path.slice(0, -1)) {
    const inner = Object.hasOwn(holder, name) ? holder[name] : undefined;
    if (!isObject(inner)) return false;
    holder = inner;
  }
  const last = path[path.length - 1]!;
  if (!Object.hasOwn(holder, last)) return false;
  const value = holder[last];
  if (typeof value !== "boolean") {
    const where = path.join(".");
    throw new MaskTypeError(`${where} is ${JSON.stringify(value) ?? String(value)}, not a boolean; refuse the document rather than guess`);
  }
  return value;
}

/**
 * True when any mask location of the newest contract version holds true (MASK_PATHS, generated from the
 * contract's mask roles: the mask and its legacy location, read on every 1.x document); absent means false.
 * A present non-boolean (null included) throws MaskTypeError: coercing "false" to a boolean gives true.
 */
export function effectiveMask(document: Readonly<Record<string, unknown>>): boolean {
  let masked = false;
  for (const path of MASK_PATHS) masked = flag(document, path) || masked;
  return masked;
}
