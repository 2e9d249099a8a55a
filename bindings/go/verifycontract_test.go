package verifycontract_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	verifycontract "github.com/verify-contract/verify-contract/bindings/go"
	"github.com/verify-contract/verify-contract/bindings/go/jsonwire"
	"github.com/verify-contract/verify-contract/bindings/go/v1_0_0"
	"github.com/verify-contract/verify-contract/bindings/go/v1_2_0"
)

func decode(t *testing.T, text string) *v1_2_0.VerifyResponse {
	t.Helper()
	var resp v1_2_0.VerifyResponse
	if err := verifycontract.Decode([]byte(text), &resp); err != nil {
		t.Fatalf("Decode(%s): %v", text, err)
	}
	return &resp
}

func TestDecodeDefaultsAndTypes(t *testing.T) {
	resp := decode(t, `{"reward": 1}`)
	if resp.Reward != "1" || resp.MaskSample != nil || resp.GetMaskSample() {
		t.Fatalf("got reward %q mask %v", resp.Reward, resp.MaskSample)
	}
	out, err := verifycontract.Encode(resp)
	if err != nil || string(out) != `{"reward":1}` {
		t.Fatalf("Encode = %s, %v; want the integer kept and no mask written", out, err)
	}
	for _, text := range []string{
		`{"reward": true}`, `{"reward": "0.5"}`, `{"reward": null}`,
		`{"reward": 0, "mask_sample": 1}`, `{"reward": 0, "mask_sample": "false"}`,
		`{"reward": 0, "failure_kind": "Judge_Failed"}`, `{"reward": 0, "instance_config": {"mask_sample": null}}`,
	} {
		var resp v1_2_0.VerifyResponse
		if err := verifycontract.Decode([]byte(text), &resp); err == nil {
			t.Errorf("Decode accepted %s", text)
		}
		if err := json.Unmarshal([]byte(text), &resp); err == nil {
			t.Errorf("the generated type alone accepted %s", text)
		}
	}
}

func TestDecodeIsStrict(t *testing.T) {
	var resp v1_2_0.VerifyResponse
	err := verifycontract.Decode([]byte(`{"reward": 0, "x": {"a": 1, "a": 2}}`), &resp)
	var parseErr *jsonwire.Error
	if !errors.As(err, &parseErr) || parseErr.Rule != jsonwire.RuleDuplicateKey {
		t.Fatalf("a nested duplicate in an unknown member: got %v", err)
	}
}

func TestFailureKindIsAnOpenEnum(t *testing.T) {
	resp := decode(t, `{"reward": 0, "failure_kind": "browser_crashed"}`)
	if *resp.FailureKind != "browser_crashed" || resp.FailureKind.Registered() || !resp.FailureKind.Valid() {
		t.Fatalf("unregistered well-formed kind: %v", *resp.FailureKind)
	}
	resp = decode(t, `{"reward": 0, "failure_kind": "judge_failed"}`)
	if *resp.FailureKind != v1_2_0.FailureKindJudgeFailed || !resp.FailureKind.Registered() {
		t.Fatalf("registered kind: %v", *resp.FailureKind)
	}
	if len(v1_2_0.RegisteredFailureKinds) == 0 {
		t.Fatal("no registered kinds generated")
	}
	for _, kind := range v1_2_0.RegisteredFailureKinds {
		if !kind.Registered() || !kind.Valid() {
			t.Errorf("%s: not registered/valid", kind)
		}
	}
	for _, bad := range []v1_2_0.FailureKind{"", "Judge", "a:b:c", "judge_failed\n", "9lives"} {
		if bad.Valid() {
			t.Errorf("%q is valid", bad)
		}
	}
}

func TestRoundTripKeepsUnknownMembersNullsAndLegacyMirror(t *testing.T) {
	in := `{"resolved":true,"reward":100000000000000000001,"failure_reason":null,` +
		`"instance_config":{"agent":"openhands","mask_sample":true},"mask_sample":true,"note":"<&>"}`
	resp := decode(t, in)
	if resp.InstanceConfig == nil || resp.InstanceConfig.MaskSample == nil || !*resp.InstanceConfig.MaskSample {
		t.Fatal("legacy mirror not decoded")
	}
	if raw, ok := resp.Extra.Get("resolved"); !ok || string(raw) != "true" {
		t.Fatalf("unknown member lost: %s", raw)
	}
	out, err := verifycontract.Encode(resp)
	if err != nil || string(out) != in {
		t.Fatalf("round trip:\n in: %s\nout: %s (%v)", in, out, err)
	}
}

func TestBuildAndEncode(t *testing.T) {
	masked, kind, reason := true, v1_2_0.FailureKindJudgeFailed, "judge timed out"
	resp := v1_2_0.VerifyResponse{Reward: "0", MaskSample: &masked, FailureKind: &kind, FailureReason: &reason}
	if err := resp.Extra.Set("num_tool_calls", 3); err != nil {
		t.Fatal(err)
	}
	out, err := verifycontract.Encode(resp)
	want := `{"reward":0,"mask_sample":true,"failure_kind":"judge_failed","failure_reason":"judge timed out","num_tool_calls":3}`
	if err != nil || string(out) != want {
		t.Fatalf("Encode = %s, %v", out, err)
	}
	bad := v1_2_0.FailureKind("Not A Kind")
	resp.FailureKind = &bad
	if _, err := verifycontract.Encode(resp); err == nil {
		t.Fatal("Encode wrote a malformed failure kind")
	}
	if _, err := verifycontract.Encode(v1_2_0.VerifyResponse{}); err == nil {
		t.Fatal("Encode wrote a document without reward")
	}
	if _, err := verifycontract.Encode(v1_2_0.VerifyResponse{Reward: "1e400"}); err == nil {
		t.Fatal("Encode wrote a non-finite reward")
	}
	clash := v1_2_0.VerifyResponse{Reward: "1"}
	_ = clash.Extra.Set("reward", 2)
	if _, err := verifycontract.Encode(clash); err == nil {
		t.Fatal("Encode wrote reward twice")
	}
}

func TestGymProfile(t *testing.T) {
	var gym v1_2_0.GymVerifyResponse
	if err := verifycontract.Decode([]byte(`{"reward": 1}`), &gym); err == nil {
		t.Fatal("gym profile accepted a document without responses_create_params/response")
	}
	text := `{"responses_create_params":{"input":"hi"},"response":{"id":"r","output":[{"type":"message"}]},"reward":1}`
	if err := verifycontract.Decode([]byte(text), &gym); err != nil {
		t.Fatal(err)
	}
	if len(gym.Response.Output) != 1 {
		t.Fatalf("output = %s", gym.Response.Output)
	}
	out, err := verifycontract.Encode(gym)
	if err != nil || string(out) != text {
		t.Fatalf("round trip: %s (%v)", out, err)
	}
	built, err := verifycontract.Encode(v1_2_0.GymVerifyResponse{Reward: "1"})
	if err != nil || string(built) != `{"reward":1,"responses_create_params":{},"response":{"output":[]}}` {
		t.Fatalf("built gym = %s, %v", built, err)
	}
}

func TestEffectiveMask(t *testing.T) {
	cases := []struct {
		text string
		want bool
		err  bool
	}{
		{`{"reward": 0}`, false, false},
		{`{"reward": 0, "mask_sample": true}`, true, false},
		{`{"reward": 0, "mask_sample": false, "instance_config": {"mask_sample": true}}`, true, false},
		{`{"reward": 0, "instance_config": null}`, false, false},
		{`{"reward": 0, "mask_sample": "false"}`, false, true},
		{`{"reward": 0, "mask_sample": null}`, false, true},
		{`{"reward": 0, "instance_config": {"mask_sample": 1}}`, false, true},
	}
	for _, c := range cases {
		doc, err := verifycontract.Parse([]byte(c.text))
		if err != nil {
			t.Fatal(err)
		}
		got, err := verifycontract.EffectiveMask(doc)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%s: got %v, %v", c.text, got, err)
		}
		if c.err && !errors.Is(err, verifycontract.ErrMaskType) {
			t.Errorf("%s: error %v does not wrap ErrMaskType", c.text, err)
		}
	}
	// A 1.0.0 document carries the mask only as unknown members; the typed value still answers.
	var old v1_0_0.VerifyResponse
	if err := verifycontract.Decode([]byte(`{"reward": 1, "instance_config": {"mask_sample": true}}`), &old); err != nil {
		t.Fatal(err)
	}
	if got, err := verifycontract.EffectiveMask(&old); err != nil || !got {
		t.Fatalf("typed 1.0.0 mask = %v, %v", got, err)
	}
}

func TestVersionsAndProfiles(t *testing.T) {
	if verifycontract.Versions[len(verifycontract.Versions)-1] != verifycontract.LatestVersion {
		t.Fatal("LatestVersion is not the last version")
	}
	for _, version := range verifycontract.Versions {
		for _, profile := range []verifycontract.Profile{verifycontract.Core, verifycontract.Gym} {
			doc, err := verifycontract.NewDocument(version, profile)
			if err != nil || doc.ContractVersion() != version || doc.ContractProfile() != string(profile) {
				t.Fatalf("NewDocument(%s, %s) = %T, %v", version, profile, doc, err)
			}
			if err := verifycontract.Validate(map[string]any{"reward": json.Number("1")}, version, profile); (err == nil) != (profile == verifycontract.Core) {
				t.Fatalf("%s %s: {reward: 1} -> %v", version, profile, err)
			}
		}
	}
	if _, err := verifycontract.NewDocument("9.9.9", verifycontract.Core); err == nil || !strings.Contains(err.Error(), "9.9.9") {
		t.Fatalf("unknown version: %v", err)
	}
}

// A missing member is at the pointer it would have (SPEC 8.1), and a finding is written as JSON with
// the member names every verify-contract tool uses.
func TestFindingPointerOfAMissingMember(t *testing.T) {
	found, err := verifycontract.Findings([]byte(`{}`), verifycontract.LatestVersion, verifycontract.Core)
	if err != nil || len(found) != 1 || found[0].Pointer != "/reward" {
		t.Fatalf("findings of {} = %+v, %v; want one at /reward", found, err)
	}
	data, err := json.Marshal(found[0])
	if err != nil {
		t.Fatal(err)
	}
	var members map[string]string
	if err := json.Unmarshal(data, &members); err != nil || members["pointer"] != "/reward" || members["rule"] != found[0].Rule {
		t.Fatalf("finding as JSON = %s (%v)", data, err)
	}
}
