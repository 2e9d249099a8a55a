//! The generated types on their own: open failure kinds, strict fields, lossless encoding.

use serde_json::{json, Value};
use verify_contract::v1_2_0::{FailureKind, GymVerifyResponse, InstanceConfig, RegisteredFailureKind, VerifyResponse};
use verify_contract::{decode, encode, v1_0_0, v1_1_0, Contract, DecodeError, Profile};

fn typed(value: Value) -> Result<VerifyResponse, serde_json::Error> {
    serde_json::from_value(value)
}

#[test]
fn registered_kinds_are_constants_and_enum_members() {
    assert_eq!(FailureKind::JUDGE_FAILED.as_str(), "judge_failed");
    assert_eq!(FailureKind::JUDGE_FAILED.registered(), Some(RegisteredFailureKind::JudgeFailed));
    assert_eq!(FailureKind::from(RegisteredFailureKind::ProtocolViolation).as_str(), "protocol_violation");
    assert_eq!(RegisteredFailureKind::ALL.len(), 24);
    for kind in RegisteredFailureKind::ALL {
        assert_eq!(kind.as_str().parse::<RegisteredFailureKind>(), Ok(kind));
        assert_eq!(FailureKind::new(kind.as_str()).unwrap().registered(), Some(kind));
    }
}

#[test]
fn unknown_well_formed_kinds_decode_and_malformed_ones_do_not() {
    for name in ["browser_crashed", "usersim:scorer_inconclusive"] {
        let kind = FailureKind::new(name).unwrap();
        assert_eq!(kind.registered(), None);
        let document = typed(json!({"reward": 0, "failure_kind": name})).unwrap();
        assert_eq!(document.failure_kind, Some(Some(kind)));
    }
    for name in ["Judge_Failed", "judge.failed", "", "judge_failed\n", "a:b:c", "9lives"] {
        assert!(FailureKind::new(name).is_err(), "{name:?}");
        assert!(typed(json!({"reward": 0, "failure_kind": name})).is_err(), "{name:?}");
    }
}

#[test]
fn fields_are_strict_without_the_schema() {
    for document in [
        json!({"reward": true}),
        json!({"reward": "0.5"}),
        json!({"reward": null}),
        json!({"mask_sample": false}),
        json!({"reward": 0, "mask_sample": "false"}),
        json!({"reward": 0, "mask_sample": 1}),
        json!({"reward": 0, "mask_sample": null}),
        json!({"reward": 0, "instance_config": {"mask_sample": null}}),
        json!({"reward": 0, "instance_config": [true]}),
        json!({"reward": 0, "failure_reason": 7}),
        json!([{"reward": 0}]),
    ] {
        assert!(typed(document.clone()).is_err(), "{document}");
    }
}

#[test]
fn absent_null_and_values_encode_back_as_they_came() {
    let absent = typed(json!({"reward": 1})).unwrap();
    assert_eq!(absent.mask_sample, None);
    assert!(!absent.mask_sample_or_default());
    assert_eq!(encode(&absent), json!({"reward": 1}));

    let nulls = json!({"reward": 0.5, "failure_kind": null, "failure_reason": null, "instance_config": null});
    let decoded = typed(nulls.clone()).unwrap();
    assert_eq!(decoded.failure_kind, Some(None));
    assert_eq!(encode(&decoded), nulls);

    let explicit = json!({"reward": 0, "mask_sample": false});
    assert_eq!(encode(&typed(explicit.clone()).unwrap()), explicit);
}

#[test]
fn integer_rewards_stay_integers() {
    let decoded: VerifyResponse = decode(br#"{"reward": 1}"#).unwrap();
    assert_eq!(serde_json::to_string(&decoded).unwrap(), r#"{"reward":1}"#);
    let decoded: VerifyResponse = decode(br#"{"reward": -3}"#).unwrap();
    assert!(encode(&decoded)["reward"].is_i64());
    let decoded: VerifyResponse = decode(br#"{"reward": 0.1}"#).unwrap();
    assert_eq!(encode(&decoded)["reward"].as_f64(), Some(0.1));
}

#[test]
fn unknown_keys_survive_in_order_at_every_open_level() {
    let text = r#"{"reward": 1.0, "z": 1, "a": {"nested": [1, 2.5, null]}, "m": "x",
        "instance_config": {"agent": "openhands", "mask_sample": true, "max_turns": 50}}"#;
    let decoded: VerifyResponse = decode(text.as_bytes()).unwrap();
    let keys: Vec<&str> = decoded.extra.keys().map(String::as_str).collect();
    assert_eq!(keys, ["z", "a", "m"]);
    let config: &InstanceConfig = decoded.instance_config.as_ref().unwrap().as_ref().unwrap();
    assert_eq!(config.mask_sample, Some(true));
    assert_eq!(config.extra.keys().collect::<Vec<_>>(), ["agent", "max_turns"]);
    let encoded = encode(&decoded);
    assert_eq!(encoded, verify_contract::parse_json(text.as_bytes()).unwrap());
    assert_eq!(encoded.as_object().unwrap().keys().collect::<Vec<_>>(), ["reward", "instance_config", "z", "a", "m"]);
}

#[test]
fn gym_profile_keeps_request_and_response_open() {
    let text = br#"{"responses_create_params": {"input": "hi", "temperature": 1.0},
        "response": {"id": "r", "output": [{"type": "message"}], "usage": {"total_tokens": 3}},
        "reward": 1, "mask_sample": true}"#;
    let decoded: GymVerifyResponse = decode(text).unwrap();
    assert_eq!(decoded.responses_create_params["input"], "hi");
    assert_eq!(decoded.response.output.len(), 1);
    assert_eq!(decoded.response.extra["usage"]["total_tokens"], 3);
    assert_eq!(decoded.effective_mask(), Ok(true));
    assert_eq!(encode(&decoded), verify_contract::parse_json(text).unwrap());
    assert!(matches!(decode::<GymVerifyResponse>(br#"{"reward": 1}"#), Err(DecodeError::Schema(_))));
}

#[test]
fn effective_mask_reads_the_legacy_location_in_every_version() {
    let legacy = br#"{"reward": 1, "instance_config": {"mask_sample": true}}"#;
    assert_eq!(decode::<v1_0_0::VerifyResponse>(legacy).unwrap().effective_mask(), Ok(true));
    assert_eq!(decode::<VerifyResponse>(legacy).unwrap().effective_mask(), Ok(true));
    // 1.1.0 does not define mask_sample: "yes" is a valid unknown key whose mask must not be guessed.
    let unknown = decode::<v1_1_0::VerifyResponse>(br#"{"reward": 0, "mask_sample": "yes"}"#).unwrap();
    assert_eq!(unknown.extra["mask_sample"], "yes");
    assert!(unknown.effective_mask().is_err());
}

#[test]
fn building_a_response_in_code() {
    let response = VerifyResponse {
        reward: 0.into(),
        mask_sample: Some(true),
        failure_kind: Some(Some(FailureKind::TRANSPORT_TIMEOUT)),
        failure_reason: Some(Some("judge did not answer in 30 s".into())),
        instance_config: None,
        extra: [("num_tool_calls".to_owned(), json!(3))].into_iter().collect(),
    };
    let encoded = encode(&response);
    assert_eq!(
        encoded,
        json!({"reward": 0, "mask_sample": true, "failure_kind": "transport_timeout",
               "failure_reason": "judge did not answer in 30 s", "num_tool_calls": 3})
    );
    assert_eq!(verify_contract::validate(&encoded, VerifyResponse::VERSION, Profile::Core), Ok(()));
}

#[test]
fn decode_reports_json_errors_first() {
    let error = decode::<VerifyResponse>(br#"{"reward": 0.5, "reward": 1}"#).unwrap_err();
    assert!(matches!(error, DecodeError::Json(ref e) if e.rule == verify_contract::JsonRule::DuplicateKey), "{error}");
}

#[test]
fn generated_constants_match_the_embedded_schema() {
    let schema: Value = serde_json::from_str(verify_contract::v1_2_0::SCHEMA_JSON).unwrap();
    let registered: Vec<&str> = schema["$defs"]["RegisteredFailureKind"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|kind| kind.as_str().unwrap())
        .collect();
    assert_eq!(registered, RegisteredFailureKind::ALL.map(RegisteredFailureKind::as_str));
    let pattern = schema["$defs"]["FailureKindName"]["pattern"].as_str().unwrap();
    assert_eq!(pattern, verify_contract::v1_2_0::FAILURE_KIND_NAME_PATTERN);
    for version in verify_contract::CONTRACT_VERSIONS {
        let text = verify_contract::generated::schema_json(version).unwrap();
        let schema: Value = serde_json::from_str(text).unwrap();
        assert!(schema["$id"].as_str().unwrap().contains(version), "{version}");
    }
}

#[test]
fn integers_of_any_size_survive_a_typed_round_trip() {
    let text = r#"{"reward":9007199254740993,"token_ids":[18446744073709551616,123456789012345678901234567890]}"#;
    let document: VerifyResponse = decode(text.as_bytes()).unwrap();
    assert_eq!(serde_json::to_string(&encode(&document)).unwrap(), text);
}
