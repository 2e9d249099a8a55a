// verify-contract: the verify-response contract for TypeScript.
export * from "./generated/index.js";
export { check, decode, type ContractOptions, type DecodeError, type DecodeResult, encode, EncodeError } from "./codec.js";
export { type JsonObject, type JsonProblem, type JsonRule, type JsonValue, MAX_DEPTH, parseJson, type ParseResult } from "./json.js";
export { effectiveMask, MaskTypeError } from "./mask.js";
export { jsonValueIssues, type Profile, PROFILES, validate, type ValidationIssue } from "./validate.js";
