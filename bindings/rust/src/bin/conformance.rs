//! Conformance runner: `conformance VECTORS_DIR` prints one JSON line per vector,
//! `{"id", "valid", "rules", "pointers", "effective_mask", "encoded"}` (`pointers`: each error's rule and
//! pointer, sorted by rule then pointer), for the cross-language test. Exits 0 when it ran,
//! whatever the verdicts; non-zero only when it could not run.

use std::error::Error;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use serde_json::{json, Value};
use verify_contract::vectors::load_vectors;
use verify_contract::Violation;

fn pointers(errors: &[Violation]) -> Vec<Value> {
    errors.iter().map(|v| json!({"rule": v.rule, "pointer": v.pointer})).collect()
}

fn run(directory: &Path) -> Result<(), Box<dyn Error>> {
    let mut out = BufWriter::new(io::stdout().lock());
    for vector in load_vectors(directory)? {
        let verdict = verify_contract::check(vector.text.as_bytes(), &vector.contract_version, vector.profile);
        let encoded = if vector.round_trip { verdict.encoded.clone() } else { None };
        let line = json!({
            "id": vector.id,
            "valid": verdict.valid(),
            "rules": verdict.rules,
            "pointers": pointers(&verdict.errors),
            "effective_mask": verdict.effective_mask,
            "encoded": encoded.unwrap_or(Value::Null),
        });
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(())
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(directory), None) = (args.next(), args.next()) else {
        eprintln!("usage: conformance VECTORS_DIR");
        return ExitCode::from(2);
    };
    match run(Path::new(&directory)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance: {error}");
            ExitCode::FAILURE
        }
    }
}
