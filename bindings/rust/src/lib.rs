//! Rust binding of the verify-response contract: the `/verify` response an RL environment returns to
//! a trainer.
//!
//! - [`generated`]: types generated from the schema, one module per contract version
//!   (`v1_2_0::VerifyResponse`, `v1_2_0::GymVerifyResponse`, `v1_2_0::FailureKind`, ...);
//! - [`parse_json`]: strict JSON text (no duplicate keys, no NaN/Infinity, at most 100 levels);
//! - [`validate`]: the schema of a version and profile (Draft 2020-12, `jsonschema` crate);
//! - [`decode`] / [`encode`]: all of the above into a typed value, and back, unknown keys included;
//! - [`effective_mask`]: `mask_sample` OR the legacy `instance_config.mask_sample` (the locations come
//!   from the contract: [`generated::MASK_PATHS`]);
//! - [`Profile`]: the contract's profiles (generated).

use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

pub mod fields;
pub mod generated;
pub mod json;
pub mod mask;
pub mod validation;
pub mod vectors;

pub use generated::{v1_0_0, v1_1_0, v1_2_0, Profile, CONTRACT_VERSIONS, LATEST_VERSION};
pub use json::{parse_json, JsonError, JsonRule, MAX_DEPTH};
pub use mask::{effective_mask, MaskTypeError};
pub use validation::{validate, SchemaError, Violation};

/// The README's examples run as doctests, so they cannot rot.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// A generated document type: which version and profile it is the type of.
pub trait Contract: Serialize + DeserializeOwned {
    const VERSION: &'static str;
    const PROFILE: Profile;

    /// [`effective_mask`] of this document as it would be encoded.
    fn effective_mask(&self) -> Result<bool, MaskTypeError> {
        effective_mask(&encode(self))
    }
}

/// Why a document could not be decoded.
#[derive(Debug)]
pub enum DecodeError {
    /// Not acceptable JSON text.
    Json(JsonError),
    /// Valid JSON that breaks the schema.
    Schema(SchemaError),
    /// Valid against the schema but not representable by the type (a binding bug if it happens).
    Type(serde_json::Error),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Json(error) => write!(f, "{error}"),
            DecodeError::Schema(error) => write!(f, "schema: {error}"),
            DecodeError::Type(error) => write!(f, "type: {error}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Parses `text` strictly, validates it against `T`'s version and profile, and decodes it.
pub fn decode<T: Contract>(text: &[u8]) -> Result<T, DecodeError> {
    let document = parse_json(text).map_err(DecodeError::Json)?;
    decode_value(document)
}

/// Validates an already parsed document against `T`'s version and profile, and decodes it.
pub fn decode_value<T: Contract>(document: Value) -> Result<T, DecodeError> {
    validate(&document, T::VERSION, T::PROFILE).map_err(DecodeError::Schema)?;
    typed(&document).map_err(DecodeError::Type)
}

/// `T` from a parsed document, through its text: serde's buffering of `#[serde(flatten)]` members
/// cannot take an integer between 2^64 and 2^128 from a `Value` ("invalid type: integer as u128"),
/// while from text every number reaches it as its literal (`arbitrary_precision`), so nothing is lost.
fn typed<T: DeserializeOwned>(document: &Value) -> Result<T, serde_json::Error> {
    serde_json::from_str(&document.to_string())
}

/// The document as a JSON value: declared fields in schema order, then unknown members in their
/// original order; absent fields stay absent and `null` stays `null`.
pub fn encode<T: Contract>(document: &T) -> Value {
    serde_json::to_value(document).expect("contract types always encode")
}

/// Decodes `value` into `T` (type check only, no schema) and encodes it back.
pub fn round_trip<T: Contract>(value: Value) -> Result<Value, serde_json::Error> {
    let document: T = typed(&value)?;
    serde_json::to_value(&document)
}

/// The verdict of the binding on one document: strict parse, schema, and typed decode all agree.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The first reason the document was refused; `None` when valid.
    pub error: Option<String>,
    /// The SPEC rule ids of every error, sorted (empty when valid).
    pub rules: Vec<String>,
    /// Every error, sorted by rule then pointer: a schema violation at its pointer (a missing member at
    /// the pointer it would have, SPEC 8.1), a defect of the JSON text at `""` (empty when valid).
    pub errors: Vec<Violation>,
    /// [`effective_mask`] for a valid document whose mask fields are booleans.
    pub effective_mask: Option<bool>,
    /// The document decoded into its type and encoded back (valid documents only).
    pub encoded: Option<Value>,
}

impl Verdict {
    pub fn valid(&self) -> bool {
        self.error.is_none()
    }
}

/// Checks JSON text against `version` and `profile` the way the conformance vectors do.
pub fn check(text: &[u8], version: &str, profile: Profile) -> Verdict {
    let refused = |error: String, mut errors: Vec<Violation>| {
        errors.sort_by(|a, b| (&a.rule, &a.pointer).cmp(&(&b.rule, &b.pointer)));
        let rules = errors.iter().map(|v| v.rule.clone()).collect();
        Verdict { error: Some(error), rules, errors, effective_mask: None, encoded: None }
    };
    let whole = |rule: &str, message: String| Violation { rule: rule.to_owned(), pointer: String::new(), message };
    let document = match parse_json(text) {
        Ok(document) => document,
        Err(error) => return refused(error.to_string(), vec![whole(error.rule.id(), error.message.clone())]),
    };
    if let Err(error) = validate(&document, version, profile) {
        let errors = match &error {
            SchemaError::Invalid(violations) => violations.clone(),
            SchemaError::UnknownVersion(_) => Vec::new(),
        };
        return refused(format!("schema: {error}"), errors);
    }
    let encoded = match generated::round_trip(version, profile, document.clone()) {
        Some(Ok(encoded)) => encoded,
        Some(Err(error)) => {
            return refused(format!("type: {error}"), vec![whole(validation::FALLBACK_RULE, error.to_string())])
        }
        None => return refused(format!("unknown contract version {version:?}"), Vec::new()),
    };
    let mask = effective_mask(&document).ok();
    Verdict { error: None, rules: Vec::new(), errors: Vec::new(), effective_mask: mask, encoded: Some(encoded) }
}
