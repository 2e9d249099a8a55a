//! The effective mask: whether a consumer must treat the reward as not measuring the policy.

use std::fmt;

use serde_json::Value;

use crate::generated::MASK_PATHS;

/// A mask field holds a non-boolean: the document is invalid and its mask must not be guessed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaskTypeError {
    /// The location, member names joined by `.` (e.g. `instance_config.mask_sample`).
    pub field: String,
    pub found: Value,
}

impl fmt::Display for MaskTypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is {}, not a boolean; refuse the document rather than guess", self.field, self.found)
    }
}

impl std::error::Error for MaskTypeError {}

/// The boolean at `path` (member names from the root); absent, or under a member that is not an
/// object, is false.
fn flag(document: &Value, path: &[&str]) -> Result<bool, MaskTypeError> {
    let Some((last, parents)) = path.split_last() else { return Ok(false) };
    let mut holder = document;
    for name in parents {
        match holder.get(name) {
            Some(inner @ Value::Object(_)) => holder = inner,
            _ => return Ok(false),
        }
    }
    match holder.as_object().and_then(|object| object.get(*last)) {
        None => Ok(false),
        Some(Value::Bool(flag)) => Ok(*flag),
        Some(other) => Err(MaskTypeError { field: path.join("."), found: other.clone() }),
    }
}

/// True when any mask location of the newest contract version holds true ([`MASK_PATHS`], generated
/// from the contract's mask roles: `mask_sample` and the legacy `instance_config.mask_sample`, read on
/// every 1.x document). Absent (or under a `null` / non-object member) means false; a present
/// non-boolean, `null` included, is an error: `"false"` must never read as true.
pub fn effective_mask(document: &Value) -> Result<bool, MaskTypeError> {
    let mut masked = false;
    for path in MASK_PATHS {
        masked = flag(document, path)? || masked;
    }
    Ok(masked)
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
