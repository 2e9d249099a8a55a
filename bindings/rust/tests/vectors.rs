//! Every conformance vector through the binding: verdict, effective mask and round trip.

use std::path::PathBuf;

use serde_json::Value;
use verify_contract::vectors::{load_vectors, Vector};
use verify_contract::{check, decode, encode, parse_json, v1_2_0, validate, Contract, Profile};

fn vectors() -> Vec<Vector> {
    let directory = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors");
    let vectors = load_vectors(&directory).expect("the repository's vectors load");
    assert!(vectors.len() >= 100, "only {} vectors found in {}", vectors.len(), directory.display());
    vectors
}

/// Equal as JSON values: `1` and `1.0` are the same number (as in JSON Schema), `true` is not `1`.
fn json_equal(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(a), Value::Number(b)) => match (a.as_i128(), b.as_i128()) {
            (Some(a), Some(b)) => a == b,
            _ => a.as_f64() == b.as_f64(),
        },
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(a, b)| json_equal(a, b)),
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(key, value)| b.get(key).is_some_and(|other| json_equal(value, other)))
        }
        _ => left == right,
    }
}

fn failures(vectors: &[Vector], mut problem: impl FnMut(&Vector) -> Option<String>) -> Vec<String> {
    vectors.iter().filter_map(|vector| problem(vector).map(|what| format!("{}: {what}", vector.id))).collect()
}

#[test]
fn every_verdict_matches() {
    let vectors = vectors();
    let wrong = failures(&vectors, |vector| {
        let verdict = check(vector.text.as_bytes(), &vector.contract_version, vector.profile);
        (verdict.valid() != vector.valid)
            .then(|| format!("expected valid={} ({}), got {:?}", vector.valid, vector.description, verdict.error))
    });
    assert!(wrong.is_empty(), "{} of {} vectors disagree:\n{}", wrong.len(), vectors.len(), wrong.join("\n"));
}

#[test]
fn every_pinned_error_is_at_its_pointer() {
    let vectors = vectors();
    let pinned: Vec<&(String, String)> = vectors.iter().filter_map(|v| v.pointers.as_ref()).flatten().collect();
    let depths: Vec<usize> =
        pinned.iter().filter(|(rule, _)| rule.ends_with("-required")).map(|(_, p)| p.matches('/').count()).collect();
    assert!(depths.contains(&1) && depths.contains(&2), "missing members pinned at depths {depths:?}");
    let wrong = failures(&vectors, |vector| {
        let want = vector.pointers.as_ref()?;
        let verdict = check(vector.text.as_bytes(), &vector.contract_version, vector.profile);
        let got: Vec<(String, String)> = verdict.errors.into_iter().map(|v| (v.rule, v.pointer)).collect();
        (&got != want).then(|| format!("errors at {got:?}, want {want:?}"))
    });
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_valid_vector_has_the_expected_mask() {
    let vectors = vectors();
    let wrong = failures(&vectors, |vector| {
        let verdict = check(vector.text.as_bytes(), &vector.contract_version, vector.profile);
        (vector.valid && verdict.effective_mask != vector.effective_mask)
            .then(|| format!("expected mask {:?}, got {:?}", vector.effective_mask, verdict.effective_mask))
    });
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_round_trip_vector_survives_decode_and_encode() {
    let vectors = vectors();
    let round_trips: Vec<&Vector> = vectors.iter().filter(|vector| vector.valid && vector.round_trip).collect();
    assert!(round_trips.len() >= 50, "only {} round-trip vectors", round_trips.len());
    let wrong = failures(&vectors, |vector| {
        if !(vector.valid && vector.round_trip) {
            return None;
        }
        let document = parse_json(vector.text.as_bytes()).expect("a valid vector parses");
        let verdict = check(vector.text.as_bytes(), &vector.contract_version, vector.profile);
        let Some(encoded) = verdict.encoded else {
            return Some(format!("not decoded: {:?}", verdict.error));
        };
        if !json_equal(&encoded, &document) {
            return Some(format!("encoded {encoded} differs from {document}"));
        }
        // The encoding is itself a valid document of the same version and profile.
        validate(&encoded, &vector.contract_version, vector.profile)
            .err()
            .map(|error| format!("re-validation: {error}"))
    });
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The typed entry point agrees with the vectors for the latest version (the path users take).
#[test]
fn typed_decode_of_latest_version_agrees() {
    fn decoded<T: Contract>(vector: &Vector) -> Option<(Value, Result<bool, verify_contract::MaskTypeError>)> {
        decode::<T>(vector.text.as_bytes()).ok().map(|typed| (encode(&typed), typed.effective_mask()))
    }
    let vectors = vectors();
    let latest: Vec<&Vector> = vectors.iter().filter(|v| v.contract_version == v1_2_0::CONTRACT_VERSION).collect();
    assert!(latest.len() >= 50);
    for vector in latest {
        let result = match vector.profile {
            Profile::Core => decoded::<v1_2_0::VerifyResponse>(vector),
            Profile::Gym => decoded::<v1_2_0::GymVerifyResponse>(vector),
        };
        assert_eq!(result.is_some(), vector.valid, "{}: {}", vector.id, vector.description);
        if let Some((encoded, mask)) = result {
            assert_eq!(mask.ok(), vector.effective_mask, "{}", vector.id);
            let document = parse_json(vector.text.as_bytes()).unwrap();
            assert!(json_equal(&encoded, &document), "{}: {encoded}", vector.id);
        }
    }
}
