//! The effective mask: whether a consumer must treat the reward as not measuring the policy.

use std::fmt;

use serde_json::Value;

/// A mask field holds a non-boolean: the document is invalid and its mask must not be guessed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaskTypeError {
    pub field: &'static str,
    pub found: Value,
}

impl fmt::Display for MaskTypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is {}, not a boolean; refuse the document rather than guess", self.field, self.found)
    }
}

impl std::error::Error for MaskTypeError {}

fn flag(value: Option<&Value>, field: &'static str) -> Result<bool, MaskTypeError> {
    match value {
        None => Ok(false),
        Some(Value::Bool(flag)) => Ok(*flag),
        Some(other) => Err(MaskTypeError { field, found: other.clone() }),
    }
}

/// `mask_sample` OR the legacy `instance_config.mask_sample` (read until contract 2.0), on any
/// contract version's document. Absent (or a `null` / non-object `instance_config`) means false; a
/// present non-boolean, `null` included, is an error: `"false"` must never read as true.
pub fn effective_mask(document: &Value) -> Result<bool, MaskTypeError> {
    let top = flag(document.get("mask_sample"), "mask_sample")?;
    let legacy = match document.get("instance_config") {
        Some(Value::Object(config)) => flag(config.get("mask_sample"), "instance_config.mask_sample")?,
        _ => false,
    };
    Ok(top || legacy)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn top_level_or_legacy() {
        assert!(!effective_mask(&json!({"reward": 1})).unwrap());
        assert!(effective_mask(&json!({"reward": 1, "mask_sample": true})).unwrap());
        assert!(effective_mask(&json!({"reward": 1, "instance_config": {"mask_sample": true}})).unwrap());
        let divergent = json!({"reward": 1, "mask_sample": false, "instance_config": {"mask_sample": true}});
        assert!(effective_mask(&divergent).unwrap());
        assert!(!effective_mask(&json!({"reward": 1, "instance_config": null})).unwrap());
        assert!(!effective_mask(&json!({"reward": 1, "instance_config": {"max_turns": 5}})).unwrap());
    }

    #[test]
    fn non_booleans_are_refused() {
        for document in [
            json!({"reward": 0, "mask_sample": "false"}),
            json!({"reward": 0, "mask_sample": null}),
            json!({"reward": 0, "mask_sample": 0}),
            json!({"reward": 0, "instance_config": {"mask_sample": "true"}}),
            json!({"reward": 0, "mask_sample": true, "instance_config": {"mask_sample": null}}),
        ] {
            assert!(effective_mask(&document).is_err(), "{document}");
        }
    }
}
