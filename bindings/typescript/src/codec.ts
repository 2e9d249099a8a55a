// decode: strict JSON text -> validated, typed value; encode: typed value -> JSON text, nothing lost.
//
// The decoded value is the parsed JSON itself (plain objects, insertion-ordered keys), so unknown keys,
// the legacy mask location and integer rewards survive decode -> encode unchanged.
// Numbers are IEEE doubles; an integer beyond 2^53 decodes to the nearest double but encodes back to its
// exact literal while unchanged (json.ts, stringifyJson). Integer-like member names ("1") enumerate
// before the others (a limit of JavaScript objects).

import {
  type ContractTypes,
  type ContractVersion,
  DEFAULT_PROFILE,
  type DefaultProfile,
  LATEST_VERSION,
  type LatestVersion,
} from "./generated/index.js";
import { type JsonProblem, parseJson, stringifyJson } from "./json.js";
import { type Profile, validate, type ValidationIssue } from "./validate.js";

export interface ContractOptions<V extends ContractVersion, P extends Profile> {
  /** Contract version to validate against; default: the latest. */
  readonly version?: V;
  /** One of PROFILES; default: DEFAULT_PROFILE. */
  readonly profile?: P;
}

export type DecodeError = ValidationIssue;
export type DecodeResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly DecodeError[] };

function problemIssue(problem: JsonProblem): DecodeError {
  return { rule: problem.rule, pointer: "", message: `${problem.message} (at offset ${problem.offset})` };
}

/** Parse `text` strictly and validate it against one version and profile. */
export function decode<V extends ContractVersion = LatestVersion, P extends Profile = DefaultProfile>(
  text: string | Uint8Array,
  options: ContractOptions<V, P> = {},
): DecodeResult<ContractTypes[V][P]> {
  const parsed = parseJson(text);
  if (!parsed.ok) return { ok: false, errors: [problemIssue(parsed.problem)] };
  return check(parsed.value, options);
}

/** Validate an already-parsed value (e.g. from another JSON reader) and narrow it to the contract type. */
export function check<V extends ContractVersion = LatestVersion, P extends Profile = DefaultProfile>(
  value: unknown,
  options: ContractOptions<V, P> = {},
): DecodeResult<ContractTypes[V][P]> {
  const issues = validate(value, options.version ?? LATEST_VERSION, options.profile ?? DEFAULT_PROFILE);
  if (issues.length > 0) return { ok: false, errors: issues };
  return { ok: true, value: value as ContractTypes[V][P] };
}

/** Raised by encode for a value that is not a valid document of the requested version and profile. */
export class EncodeError extends Error {
  override readonly name = "EncodeError";
  constructor(readonly errors: readonly ValidationIssue[]) {
    super(`not a valid verify response: ${errors.map((e) => `${e.pointer || "/"} ${e.message}`).join("; ")}`);
  }
}

/** Serialize a verify response to JSON text after validating it; unknown keys are kept in order. */
export function encode<V extends ContractVersion = LatestVersion, P extends Profile = DefaultProfile>(
  value: ContractTypes[V][P],
  options: ContractOptions<V, P> = {},
): string {
  const issues = validate(value, options.version ?? LATEST_VERSION, options.profile ?? DEFAULT_PROFILE);
  if (issues.length > 0) throw new EncodeError(issues);
  return stringifyJson(value);
}
