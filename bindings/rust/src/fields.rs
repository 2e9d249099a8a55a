//! Serde helpers the generated types use: strict optional fields and checked strings.

use std::fmt;

use fancy_regex::Regex;
use serde::{Deserialize, Deserializer};

/// An optional field that must not be `null` when present (`"mask_sample": null` is an error,
/// not "absent"). Use with `#[serde(default)]`, which makes absence `None`.
pub fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// An optional nullable field: `None` = absent, `Some(None)` = `null`, `Some(Some(v))` = a value,
/// so each encodes back as it came. Use with `#[serde(default)]`.
pub fn nullable<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// Compiles a pattern taken from the schema; the generator only emits patterns the schema holds.
pub fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|error| panic!("schema pattern {pattern:?} does not compile: {error}"))
}

/// Whether `text` matches; a pattern that cannot decide (backtrack limit) does not match.
pub fn matches(pattern: &Regex, text: &str) -> bool {
    pattern.is_match(text).unwrap_or(false)
}

/// A string that is not a value of a checked string type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidValue {
    type_name: &'static str,
    text: String,
}

impl InvalidValue {
    pub fn new(type_name: &'static str, text: &str) -> Self {
        InvalidValue { type_name, text: text.to_owned() }
    }
}

impl fmt::Display for InvalidValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not a valid {}", self.text, self.type_name)
    }
}

impl std::error::Error for InvalidValue {}
