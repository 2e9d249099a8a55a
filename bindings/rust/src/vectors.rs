//! The language-neutral conformance vectors (`vectors/*.json` at the repository root).

use std::error::Error;
use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::Profile;

/// The vector files' own schema, not a vector file.
pub const SCHEMA_FILE: &str = "vectors.schema.json";

/// One conformance vector, with the document as JSON text.
#[derive(Debug, Clone)]
pub struct Vector {
    pub file: String,
    pub id: String,
    pub description: String,
    pub contract_version: String,
    pub profile: Profile,
    /// `instance_json` if present, else the JSON serialization of `instance`.
    pub text: String,
    pub valid: bool,
    pub effective_mask: Option<bool>,
    /// Whether a valid document must survive decode then encode (default: `valid`).
    pub round_trip: bool,
    /// Where each error is, `(rule, pointer)` sorted, when the vector pins it (SPEC 8.1).
    pub pointers: Option<Vec<(String, String)>>,
}

fn pointers(test: &Value) -> Result<Option<Vec<(String, String)>>, String> {
    let Some(items) = test.get("pointers") else {
        return Ok(None);
    };
    let items = items.as_array().ok_or("\"pointers\" is not an array")?;
    let place =
        |item: &Value| Some((item.get("rule")?.as_str()?.to_owned(), item.get("pointer")?.as_str()?.to_owned()));
    items
        .iter()
        .map(|item| place(item).ok_or_else(|| format!("a pointers entry is not {{rule, pointer}}: {item}")))
        .collect::<Result<_, _>>()
        .map(Some)
}

fn field<'a>(test: &'a Value, name: &str) -> Result<&'a Value, String> {
    test.get(name).ok_or_else(|| format!("a vector lacks {name:?}"))
}

fn string(test: &Value, name: &str) -> Result<String, String> {
    field(test, name)?.as_str().map(str::to_owned).ok_or_else(|| format!("{name:?} is not a string"))
}

fn vector(file: &str, test: &Value) -> Result<Vector, String> {
    let profile_name = string(test, "profile")?;
    let profile = Profile::from_name(&profile_name).ok_or_else(|| format!("unknown profile {profile_name:?}"))?;
    let text = match (test.get("instance_json"), test.get("instance")) {
        (Some(Value::String(text)), None) => text.clone(),
        (None, Some(instance)) => instance.to_string(),
        _ => return Err("a vector needs exactly one of instance and instance_json (a string)".into()),
    };
    let valid = field(test, "valid")?.as_bool().ok_or("\"valid\" is not a boolean")?;
    Ok(Vector {
        file: file.to_owned(),
        id: string(test, "id")?,
        description: string(test, "description")?,
        contract_version: string(test, "contract_version")?,
        profile,
        text,
        valid,
        effective_mask: field(test, "effective_mask")?.as_bool(),
        round_trip: test.get("round_trip").and_then(Value::as_bool).unwrap_or(valid),
        pointers: pointers(test)?,
    })
}

/// Every vector in `directory`: files sorted by name, then tests in file order.
pub fn load_vectors(directory: &Path) -> Result<Vec<Vector>, Box<dyn Error>> {
    let mut files: Vec<String> = fs::read_dir(directory)?
        .map(|entry| entry.map(|entry| entry.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    files.retain(|name| name.ends_with(".json") && name != SCHEMA_FILE);
    files.sort();
    let mut vectors = Vec::new();
    for file in files {
        let data: Value = serde_json::from_slice(&fs::read(directory.join(&file))?)?;
        let tests = data.get("tests").and_then(Value::as_array).ok_or_else(|| format!("{file}: no tests array"))?;
        for test in tests {
            vectors.push(vector(&file, test).map_err(|error| format!("{file}: {error}"))?);
        }
    }
    Ok(vectors)
}
