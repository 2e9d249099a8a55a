// Strict JSON text parsing: RFC 8259 with I-JSON's restrictions and a nesting limit (SPEC.md#json-text).
//
// Hand-written rather than JSON.parse or a library: JSON.parse keeps the last of duplicate member names
// and gives no hook to see them, and the maintained alternatives either share that blind spot or
// build a full AST (with source locations) only to be walked again. This parser is small, has no
// dependencies, reports the contract's four error rules exactly, and never recurses deeper than
// MAX_DEPTH, so a 10,000-level document is one clear error, not a stack overflow.

import { MAX_DEPTH } from "./generated/index.js";

/** Deepest nesting a document may have (the contract's limit, generated). */
export { MAX_DEPTH };

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export type JsonRule = "json-syntax" | "json-duplicate-key" | "json-non-finite" | "json-too-deep";

export interface JsonProblem {
  readonly rule: JsonRule;
  readonly message: string;
  /** Offset in the text (UTF-16 code units) where the problem was found. */
  readonly offset: number;
}

export type ParseResult = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly problem: JsonProblem };

class Reject extends Error {
  constructor(
    readonly rule: JsonRule,
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Set a member without invoking the `__proto__` setter: JSON member names are plain data. */
export function defineMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/**
 * The exact literal of every integer a parsed document holds beyond 2^53 (where a JavaScript number
 * is only the nearest double): container -> member name or array index -> literal. `stringifyJson`
 * writes the literal back while the value is still that double, so decode -> encode keeps the value
 * (SPEC.md 3.1), and typed code still sees plain numbers.
 */
const EXACT_INTEGERS = new WeakMap<object, Map<string, string>>();

function rememberExact(container: object, key: string, lexeme: string): void {
  let members = EXACT_INTEGERS.get(container);
  if (members === undefined) EXACT_INTEGERS.set(container, (members = new Map()));
  members.set(key, lexeme);
}

function numberText(container: object, key: string, value: number): string {
  const lexeme = EXACT_INTEGERS.get(container)?.get(key);
  return lexeme !== undefined && Number(lexeme) === value ? lexeme : doubleText(value);
}

/**
 * A double with its shortest round-trip digits. Beyond 2^53, JSON.stringify pads those digits with zeros
 * (1.7037181445619378e+20 becomes 170371814456193780000), which a reader keeping integers exact (SPEC.md
 * 3.1) takes for another number: there it is written as Python writes it (exponent from 1e16 on, else
 * the integer and ".0").
 */
function doubleText(value: number): string {
  if (!Number.isFinite(value) || Math.abs(value) < 2 ** 53) return JSON.stringify(value);
  const exponential = value.toExponential();
  return Number(exponential.split("e")[1]) >= 16 ? exponential : `${value.toFixed(0)}.0`;
}

/** JSON.stringify for JSON values, except that integers parsed beyond 2^53 keep their exact literal. */
export function stringifyJson(value: unknown): string {
  const write = (node: unknown, container: object | null, key: string): string => {
    if (typeof node === "number" && container !== null) return numberText(container, key, node);
    if (node === null || typeof node !== "object") return JSON.stringify(node);
    if (Array.isArray(node)) return `[${node.map((item, index) => write(item, node, String(index))).join(",")}]`;
    const members = Object.entries(node as Record<string, unknown>).filter(([, item]) => item !== undefined);
    return `{${members.map(([name, item]) => `${JSON.stringify(name)}:${write(item, node, name)}`).join(",")}}`;
  };
  return write(value, null, "");
}

class Parser {
  private pos = 0;
  /** The literal of the number just parsed, when it is an integer a double cannot hold exactly. */
  private inexactInteger: string | undefined;

  constructor(private readonly text: string) {}

  parseDocument(): JsonValue {
    this.skipWhitespace();
    const value = this.parseValue(0);
    this.skipWhitespace();
    if (this.pos !== this.text.length) this.fail("json-syntax", "extra data after the JSON value");
    return value;
  }

  private fail(rule: JsonRule, message: string, offset: number = this.pos): never {
    throw new Reject(rule, message, offset);
  }

  private skipWhitespace(): void {
    const text = this.text;
    while (this.pos < text.length) {
      const c = text.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      this.pos++;
    }
  }

  private parseValue(depth: number): JsonValue {
    const text = this.text;
    this.inexactInteger = undefined;
    if (this.pos >= text.length) this.fail("json-syntax", "unexpected end of text, expecting a value");
    const c = text[this.pos];
    switch (c) {
      case "{":
        return this.parseObject(depth + 1);
      case "[":
        return this.parseArray(depth + 1);
      case '"':
        return this.parseString();
      case "t":
        return this.literal("true", true);
      case "f":
        return this.literal("false", false);
      case "n":
        return this.literal("null", null);
      default:
        break;
    }
    for (const token of ["NaN", "Infinity", "-Infinity"]) {
      if (text.startsWith(token, this.pos)) this.fail("json-non-finite", `${token} is not a JSON number`);
    }
    return this.parseNumber();
  }

  private literal<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail("json-syntax", "invalid literal, expecting a value");
    this.pos += word.length;
    return value;
  }

  private parseNumber(): number {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (match === null) this.fail("json-syntax", "expecting a value");
    const lexeme = match[0];
    // A '.' or an exponent mark that could continue the number but has no digits after it makes the
    // whole literal malformed (json-syntax), not a number that may overflow (SPEC.md 2.1).
    const after = this.text[this.pos + lexeme.length];
    const hasFraction = lexeme.includes(".");
    const hasExponent = /[eE]/.test(lexeme);
    if (((after === "e" || after === "E") && !hasExponent) || (after === "." && !hasFraction && !hasExponent)) {
      this.fail("json-syntax", "malformed number", this.pos + lexeme.length);
    }
    const value = Number(lexeme);
    if (!Number.isFinite(value)) this.fail("json-non-finite", `${lexeme} overflows to infinity`);
    this.pos += lexeme.length;
    if (!Number.isSafeInteger(value) && /^-?[0-9]+$/.test(lexeme)) this.inexactInteger = lexeme;
    return value;
  }

  private parseString(): string {
    const text = this.text;
    const start = this.pos;
    this.pos++; // opening quote
    let result = "";
    let chunkStart = this.pos;
    for (;;) {
      if (this.pos >= text.length) this.fail("json-syntax", "unterminated string", start);
      const code = text.charCodeAt(this.pos);
      if (code === 0x22) {
        result += text.slice(chunkStart, this.pos);
        this.pos++;
        // I-JSON: strings are Unicode, so a surrogate must be half of a pair (escaped or not).
        if (LONE_SURROGATE.test(result)) {
          this.fail("json-syntax", "unpaired surrogate in a string (I-JSON: strings are Unicode)", start);
        }
        return result;
      }
      if (code < 0x20) this.fail("json-syntax", "control character in a string");
      if (code !== 0x5c) {
        this.pos++;
        continue;
      }
      result += text.slice(chunkStart, this.pos);
      const escape = text[this.pos + 1];
      if (escape === "u") {
        const hex = text.slice(this.pos + 2, this.pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("json-syntax", "invalid \\u escape");
        result += String.fromCharCode(parseInt(hex, 16));
        this.pos += 6;
      } else {
        const replacement = escape === undefined ? undefined : ESCAPES[escape];
        if (replacement === undefined) this.fail("json-syntax", "invalid escape");
        result += replacement;
        this.pos += 2;
      }
      chunkStart = this.pos;
    }
  }

  private enter(depth: number): void {
    if (depth > MAX_DEPTH) this.fail("json-too-deep", `the value nests deeper than ${MAX_DEPTH} levels`);
    this.pos++; // opening bracket
    this.skipWhitespace();
  }

  private parseArray(depth: number): JsonValue[] {
    this.enter(depth);
    const items: JsonValue[] = [];
    if (this.text[this.pos] === "]") {
      this.pos++;
      return items;
    }
    for (;;) {
      this.skipWhitespace();
      const item = this.parseValue(depth);
      if (this.inexactInteger !== undefined) rememberExact(items, String(items.length), this.inexactInteger);
      items.push(item);
      this.skipWhitespace();
      const c = this.text[this.pos];
      this.pos++;
      if (c === "]") return items;
      if (c !== ",") this.fail("json-syntax", "expecting ',' or ']'", this.pos - 1);
    }
  }

  private parseObject(depth: number): JsonObject {
    this.enter(depth);
    const members: JsonObject = {};
    if (this.text[this.pos] === "}") {
      this.pos++;
      return members;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') this.fail("json-syntax", "expecting a member name in double quotes");
      const keyOffset = this.pos;
      const key = this.parseString();
      if (Object.hasOwn(members, key)) this.fail("json-duplicate-key", `duplicate member name ${JSON.stringify(key)}`, keyOffset);
      this.skipWhitespace();
      if (this.text[this.pos] !== ":") this.fail("json-syntax", "expecting ':'");
      this.pos++;
      this.skipWhitespace();
      const value = this.parseValue(depth);
      if (this.inexactInteger !== undefined) rememberExact(members, key, this.inexactInteger);
      defineMember(members, key, value);
      this.skipWhitespace();
      const c = this.text[this.pos];
      this.pos++;
      if (c === "}") return members;
      if (c !== ",") this.fail("json-syntax", "expecting ',' or '}'", this.pos - 1);
    }
  }
}

/** Parse one JSON text strictly: UTF-8 without BOM, unique member names, finite numbers, depth <= 100. */
export function parseJson(input: string | Uint8Array): ParseResult {
  let text: string;
  if (typeof input === "string") {
    text = input;
  } else {
    if (input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf) {
      return { ok: false, problem: { rule: "json-syntax", message: "the text starts with a UTF-8 byte order mark", offset: 0 } };
    }
    try {
      text = UTF8.decode(input);
    } catch {
      return { ok: false, problem: { rule: "json-syntax", message: "the text is not valid UTF-8", offset: 0 } };
    }
  }
  if (text.charCodeAt(0) === 0xfeff) {
    return { ok: false, problem: { rule: "json-syntax", message: "the text starts with a byte order mark", offset: 0 } };
  }
  try {
    return { ok: true, value: new Parser(text).parseDocument() };
  } catch (error) {
    if (error instanceof Reject) return { ok: false, problem: { rule: error.rule, message: error.message, offset: error.offset } };
    throw error;
  }
}
