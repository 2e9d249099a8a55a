//! Schema validation with the `jsonschema` crate (Draft 2020-12), per contract version and profile.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

use jsonschema::Validator;
use serde_json::Value;

use crate::generated::{profile_definition, schema_json, CONTRACT_VERSIONS};
use crate::Profile;

/// One violated schema rule: its SPEC rule id, where in the document, and what. As JSON (serde) its
/// members are `rule`, `pointer` and `message`, the names every verify-contract tool writes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    /// The SPEC rule id (section 8), e.g. `reward-type`.
    pub rule: String,
    /// JSON Pointer to the offending value (`""` for the document itself); for a missing member,
    /// the pointer the member would have (SPEC 8.1).
    pub pointer: String,
    pub message: String,
}

/// One row of the generated table mapping a violation at a location to a rule id
/// (`generated/schema_rules.json`, from generators/schema_rules.py; format documented there).
#[derive(Debug, Clone, serde::Deserialize)]
struct SchemaRule {
    pointer: String,
    keyword: String,
    rule: String,
    #[serde(default)]
    types: Vec<String>,
}

pub use crate::generated::FALLBACK_RULE;

fn schema_rules(version: &str) -> &'static [SchemaRule] {
    static TABLES: OnceLock<BTreeMap<String, Vec<SchemaRule>>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        serde_json::from_str(include_str!("generated/schema_rules.json")).expect("the generated rule table is JSON")
    });
    tables.get(version).map(Vec::as_slice).unwrap_or(&[])
}

fn json_type(value: Option<&Value>) -> &'static str {
    match value {
        None | Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "boolean",
        Some(Value::Number(_)) => "number",
        Some(Value::String(_)) => "string",
        Some(Value::Array(_)) => "array",
        Some(Value::Object(_)) => "object",
    }
}

fn escape(part: &str) -> String {
    part.replace('~', "~0").replace('/', "~1")
}

/// The generic mapping: one violation per violated location, its rule from the table.
fn rule_violations<'a>(
    document: &Value,
    errors: impl Iterator<Item = jsonschema::ValidationError<'a>>,
    table: &[SchemaRule],
) -> Vec<Violation> {
    let row = |pointer: &str, keyword: &str| table.iter().find(|r| r.pointer == pointer && r.keyword == keyword);
    let mut found: Vec<Violation> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for error in errors {
        let at = error.instance_path().to_string();
        if let jsonschema::error::ValidationErrorKind::Required { property } = error.kind() {
            let name = property.as_str().map(str::to_owned).unwrap_or_else(|| property.to_string());
            let pointer = format!("{at}/{}", escape(&name));
            if seen.insert(format!("required {pointer}")) {
                let rule = row(&pointer, "required").map_or(FALLBACK_RULE, |r| r.rule.as_str());
                found.push(Violation { rule: rule.to_owned(), pointer, message: error.to_string() });
            }
            continue;
        }
        if !seen.insert(at.clone()) {
            continue;
        }
        let actual = json_type(document.pointer(&at));
        let rule = match row(&at, "type") {
            Some(r) if !r.types.iter().any(|t| t == actual) => r.rule.as_str(),
            _ => row(&at, "value").map_or(FALLBACK_RULE, |r| r.rule.as_str()),
        };
        found.push(Violation { rule: rule.to_owned(), pointer: at, message: error.to_string() });
    }
    found
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() { "/" } else { &self.pointer };
        write!(f, "{}: {pointer}: {}", self.rule, self.message)
    }
}

/// Why a document was not accepted by the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaError {
    /// The version is not a contract version this binding knows.
    UnknownVersion(String),
    /// The document breaks the schema; at least one violation.
    Invalid(Vec<Violation>),
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaError::UnknownVersion(version) => write!(f, "unknown contract version {version:?}"),
            SchemaError::Invalid(violations) => {
                let lines: Vec<String> = violations.iter().map(Violation::to_string).collect();
                write!(f, "{}", lines.join("; "))
            }
        }
    }
}

impl std::error::Error for SchemaError {}

/// The validator of one version and profile: the bundled schema with a root `$ref` to the profile.
fn compile(version: &str, profile: Profile) -> Validator {
    let text = schema_json(version).expect("a generated contract version");
    let mut schema: Value = serde_json::from_str(text).expect("the bundled schema is JSON");
    let root = format!("#/$defs/{}", profile_definition(profile));
    schema.as_object_mut().expect("the schema is an object").insert("$ref".into(), Value::String(root));
    jsonschema::draft202012::new(&schema).expect("the bundled schema compiles")
}

fn validators() -> &'static BTreeMap<(&'static str, Profile), Validator> {
    static VALIDATORS: OnceLock<BTreeMap<(&'static str, Profile), Validator>> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        let mut all = BTreeMap::new();
        for version in CONTRACT_VERSIONS {
            for profile in Profile::ALL {
                all.insert((version, profile), compile(version, profile));
            }
        }
        all
    })
}

/// Validates a parsed document against `version`'s schema in `profile`.
pub fn validate(document: &Value, version: &str, profile: Profile) -> Result<(), SchemaError> {
    let validator =
        validators().get(&(version, profile)).ok_or_else(|| SchemaError::UnknownVersion(version.to_owned()))?;
    let violations = rule_violations(document, validator.iter_errors(document), schema_rules(version));
    if violations.is_empty() {
        Ok(())
    } else {
        Err(SchemaError::Invalid(violations))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_version_and_profile_compiles() {
        assert_eq!(validators().len(), CONTRACT_VERSIONS.len() * Profile::ALL.len());
    }

    #[test]
    fn profiles_differ() {
        let core = json!({"reward": 1});
        assert_eq!(validate(&core, "1.2.0", Profile::Core), Ok(()));
        assert!(matches!(validate(&core, "1.2.0", Profile::Gym), Err(SchemaError::Invalid(_))));
    }

    #[test]
    fn versions_differ() {
        let mask_string = json!({"reward": 0, "mask_sample": "yes"});
        assert_eq!(validate(&mask_string, "1.1.0", Profile::Core), Ok(()));
        assert!(validate(&mask_string, "1.2.0", Profile::Core).is_err());
        assert_eq!(validate(&mask_string, "9.9.9", Profile::Core), Err(SchemaError::UnknownVersion("9.9.9".into())));
    }

    #[test]
    fn a_missing_member_is_at_its_own_pointer() {
        let Err(SchemaError::Invalid(violations)) = validate(&json!({}), "1.2.0", Profile::Core) else {
            panic!("{{}} was accepted");
        };
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].pointer, "/reward");
        let as_json = serde_json::to_value(&violations[0]).expect("a violation serializes");
        assert_eq!(as_json["pointer"], "/reward");
        assert_eq!(as_json["rule"], violations[0].rule.as_str());
    }

    #[test]
    fn failure_kind_pattern_is_anchored() {
        for kind in ["judge_failed\n", "Judge_Failed", "a:b:c", "", "9lives"] {
            let document = json!({"reward": 0, "failure_kind": kind});
            assert!(validate(&document, "1.2.0", Profile::Core).is_err(), "{kind:?}");
        }
    }
}
