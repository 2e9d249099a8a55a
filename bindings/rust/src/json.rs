//! Strict JSON text parsing (RFC 8259 + I-JSON), as the contract requires of every reader.
//!
//! serde_json alone keeps the last of duplicate member names, allows 128 levels of nesting and
//! accepts a leading BOM only by accident of the caller; this module parses through a visitor that
//! refuses duplicates at any depth and nesting beyond [`MAX_DEPTH`].

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

pub use crate::generated::MAX_DEPTH;

const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// Which JSON-text rule a document breaks (the finding ids of the Python reference).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonRule {
    /// `json-syntax`: not one well-formed UTF-8 JSON value (including a BOM).
    Syntax,
    /// `json-duplicate-key`: a member name repeats within one object.
    DuplicateKey,
    /// `json-non-finite`: `NaN`/`Infinity` tokens or a number that overflows a double.
    NonFinite,
    /// `json-too-deep`: nesting beyond [`MAX_DEPTH`].
    TooDeep,
}

impl JsonRule {
    /// The rule id, as in the conformance vectors' findings.
    pub const fn id(self) -> &'static str {
        match self {
            JsonRule::Syntax => "json-syntax",
            JsonRule::DuplicateKey => "json-duplicate-key",
            JsonRule::NonFinite => "json-non-finite",
            JsonRule::TooDeep => "json-too-deep",
        }
    }
}

/// A document that is not acceptable JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub rule: JsonRule,
    pub message: String,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule.id(), self.message)
    }
}

impl std::error::Error for JsonError {}

/// Parses one JSON text strictly: UTF-8 without BOM, unique member names at every depth, finite
/// numbers, at most [`MAX_DEPTH`] levels, nothing after the value but whitespace.
pub fn parse_json(bytes: &[u8]) -> Result<Value, JsonError> {
    let syntax = |message: String| JsonError { rule: JsonRule::Syntax, message };
    if bytes.starts_with(UTF8_BOM) {
        return Err(syntax("the text starts with a UTF-8 byte order mark (RFC 8259 forbids it)".into()));
    }
    let text = std::str::from_utf8(bytes).map_err(|error| syntax(format!("invalid UTF-8: {error}")))?;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Node { depth: 1 }
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value))
        .map_err(|error| classify(text, &error))?;
    Ok(value)
}

/// Our visitor's own errors carry their rule id as a prefix; serde_json's are told apart by kind.
fn classify(text: &str, error: &serde_json::Error) -> JsonError {
    let message = error.to_string();
    for rule in [JsonRule::DuplicateKey, JsonRule::NonFinite, JsonRule::TooDeep] {
        if let Some(rest) = message.strip_prefix(rule.id()) {
            return JsonError { rule, message: rest.trim_start_matches(": ").to_owned() };
        }
    }
    let rule = if message.starts_with("number out of range") {
        JsonRule::NonFinite
    } else if message.starts_with("recursion limit exceeded") {
        JsonRule::TooDeep
    } else if non_finite_token_at_value(text, &message, error.line(), error.column()) {
        JsonRule::NonFinite
    } else {
        JsonRule::Syntax
    };
    JsonError { rule, message }
}

/// Whether the syntax error is a `NaN`, `Infinity` or `-Infinity` token (JavaScript's spellings,
/// which JSON lacks) where the grammar expects a value: that is `json-non-finite` (SPEC.md 2.1);
/// the same token anywhere else (`{"a":0NaN}`, `-NaN`) is a syntax error like any other.
/// serde_json says "expected value" where a value cannot start, and "invalid number" after a `-`
/// that no digit follows; its 1-based column points at the offending byte.
fn non_finite_token_at_value(text: &str, message: &str, line: usize, column: usize) -> bool {
    let Some(line_text) = text.split('\n').nth(line.saturating_sub(1)) else {
        return false;
    };
    let at = column.saturating_sub(1);
    if message.starts_with("expected value") {
        let rest = line_text.get(at..).unwrap_or("");
        return rest.starts_with("NaN") || rest.starts_with("Infinity");
    }
    if message.starts_with("invalid number") {
        // The '-' must itself start a value: at the start of the text or after '[', ',' or ':'.
        let line_start: usize = text.split('\n').take(line.saturating_sub(1)).map(|l| l.len() + 1).sum();
        let minus = line_start + at.saturating_sub(1);
        let before = text.get(..minus).unwrap_or("").trim_end_matches([' ', '\t', '\r', '\n']);
        let at_value = before.is_empty() || before.ends_with(['[', ',', ':']);
        return at > 0 && at_value && line_text.get(at - 1..).is_some_and(|rest| rest.starts_with("-Infinity"));
    }
    false
}

/// Builds a [`Value`] at a given nesting depth (a container here is at `depth`).
struct Node {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Node {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Node {
    fn enter<E: de::Error>(&self) -> Result<Node, E> {
        if self.depth > MAX_DEPTH {
            return Err(E::custom(format_args!(
                "{}: the value nests deeper than {MAX_DEPTH} levels",
                JsonRule::TooDeep.id()
            )));
        }
        Ok(Node { depth: self.depth + 1 })
    }
}

impl<'de> Visitor<'de> for Node {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    // With `arbitrary_precision` numbers arrive through `visit_map`; these stay for other inputs.
    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        Number::from_f64(value)
            .map(Value::Number)
            .ok_or_else(|| E::custom(format_args!("{}: {value} is not a finite number", JsonRule::NonFinite.id())))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let child = self.enter()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Node { depth: child.depth })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        // Read the first name before counting this object's depth: with serde_json's
        // `arbitrary_precision`, a number arrives as a one-member map under a private name, and a
        // number is not a level of nesting. An error inside that first name is still preceded, in
        // text order, by the opening brace: past the depth limit, the brace is the finding.
        let first = match map.next_key::<String>() {
            Ok(first) => first,
            Err(error) => return Err(self.enter().err().unwrap_or(error)),
        };
        if first.as_deref() == Some(NUMBER_TOKEN) {
            return exact_number(map.next_value::<String>()?);
        }
        let child = self.enter()?;
        let mut members = Map::new();
        let mut next = first;
        while let Some(key) = next {
            if members.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "{}: duplicate member name {key:?}",
                    JsonRule::DuplicateKey.id()
                )));
            }
            let value = map.next_value_seed(Node { depth: child.depth })?;
            members.insert(key, value);
            next = map.next_key::<String>()?;
        }
        Ok(Value::Object(members))
    }
}

/// The name under which serde_json's `arbitrary_precision` hands a number literal to a visitor (the
/// same convention its own `Value` relies on, so an object with exactly this one member name is
/// read as a number by serde_json itself too).
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// A number kept as its literal (so integers of any size survive a round trip), if it is finite.
fn exact_number<E: de::Error>(literal: String) -> Result<Value, E> {
    let finite = literal.parse::<f64>().is_ok_and(f64::is_finite);
    if !finite {
        return Err(E::custom(format_args!("{}: {literal:.40} overflows to infinity", JsonRule::NonFinite.id())));
    }
    literal.parse::<Number>().map(Value::Number).map_err(E::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> Option<JsonRule> {
        parse_json(text.as_bytes()).err().map(|error| error.rule)
    }

    fn nested(depth: usize) -> String {
        // `depth` levels: the top-level object plus depth - 1 arrays.
        format!("{{\"x\": {}{}}}", "[".repeat(depth - 1), "]".repeat(depth - 1))
    }

    #[test]
    fn accepts_plain_documents_and_keeps_key_order() {
        let value = parse_json(br#" {"b": 1, "a": [true, null, "x"], "c": 0.5} "#).unwrap();
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["b", "a", "c"]);
        assert!(value["b"].is_u64());
    }

    #[test]
    fn integers_keep_their_exact_value() {
        let text = r#"{"a":9007199254740993,"b":[18446744073709551616,-123456789012345678901234567890],"c":0.1}"#;
        let value = parse_json(text.as_bytes()).unwrap();
        assert_eq!(serde_json::to_string(&value).unwrap(), text);
        assert_eq!(rule(&format!("[{}]", "9".repeat(309))), Some(JsonRule::NonFinite));
        let deepest = format!("{{\"a\": {}1{}}}", "[".repeat(99), "]".repeat(99));
        assert_eq!(rule(&deepest), None, "a number is not a level of nesting");
    }

    #[test]
    fn duplicate_keys_at_any_depth() {
        assert_eq!(rule(r#"{"a": 1, "a": 1}"#), Some(JsonRule::DuplicateKey));
        assert_eq!(rule(r#"{"a": [{"b": {"c": 1, "c": 2}}]}"#), Some(JsonRule::DuplicateKey));
        assert_eq!(rule(r#"{"a": {"c": 1}, "b": {"c": 2}}"#), None);
    }

    #[test]
    fn non_finite_numbers() {
        assert_eq!(rule(r#"{"reward": NaN}"#), Some(JsonRule::NonFinite));
        assert_eq!(rule(r#"{"reward": Infinity}"#), Some(JsonRule::NonFinite));
        assert_eq!(rule(r#"{"reward": -Infinity}"#), Some(JsonRule::NonFinite));
        assert_eq!(rule(r#"{"reward": 1e400}"#), Some(JsonRule::NonFinite));
        assert_eq!(rule(r#"{"reward": -1e400}"#), Some(JsonRule::NonFinite));
        assert_eq!(rule(r#"{"reward": 1e-400}"#), None);
    }

    #[test]
    fn first_defect_in_text_order() {
        let cases = [
            ("-NaN", JsonRule::Syntax),
            (r#"{"":0NaN"#, JsonRule::Syntax),
            (r#"{"a" NaN}"#, JsonRule::Syntax),
            ("{} NaN", JsonRule::Syntax),
            ("[1,NaN]", JsonRule::NonFinite),
            ("[NaN", JsonRule::NonFinite),
            ("[\n  -Infinity", JsonRule::NonFinite),
            ("[\n  Infinity]", JsonRule::NonFinite),
            (r#"{"reward":"","reward":1e400"#, JsonRule::DuplicateKey),
            (r#"{"a":1,"a":NaN}"#, JsonRule::DuplicateKey),
            (r#"{"a":NaN,"a":1}"#, JsonRule::NonFinite),
            (r#"{"a":"\ud800","a":1}"#, JsonRule::Syntax),
            (r#"{"a":1,"a"}"#, JsonRule::DuplicateKey),
            (r#"[1e400,"\udc00"]"#, JsonRule::NonFinite),
            (r#"["é", NaN]"#, JsonRule::NonFinite),
            (r#"{"reward": 1.5e-Infinity}"#, JsonRule::Syntax),
            ("[1,\n-Infinity]", JsonRule::NonFinite),
        ];
        for (text, want) in cases {
            assert_eq!(rule(text), Some(want), "{text:?}");
        }
    }

    #[test]
    fn depth_limit() {
        assert_eq!(rule(&nested(MAX_DEPTH)), None);
        assert_eq!(rule(&nested(MAX_DEPTH + 1)), Some(JsonRule::TooDeep));
        assert_eq!(rule(&nested(200)), Some(JsonRule::TooDeep));
        assert_eq!(rule(&nested(100_000)), Some(JsonRule::TooDeep));
    }

    #[test]
    fn syntax_errors() {
        for text in ["", "{", r#"{"a": 1,}"#, "{'a': 1}", "{} {}", r#"{"a": tru}"#, "nan"] {
            assert_eq!(rule(text), Some(JsonRule::Syntax), "{text:?}");
        }
        assert_eq!(parse_json(b"\xef\xbb\xbf{}").unwrap_err().rule, JsonRule::Syntax);
        assert_eq!(parse_json(b"{\"a\": \"\xff\"}").unwrap_err().rule, JsonRule::Syntax);
    }
}
