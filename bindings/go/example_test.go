package verifycontract_test

import (
	"fmt"

	verifycontract "github.com/verify-contract/verify-contract/bindings/go"
	"github.com/verify-contract/verify-contract/bindings/go/v1_2_0"
)

// A trainer decodes a verify response, reads the effective mask, and writes the document back.
func Example() {
	body := []byte(`{"reward": 1, "failure_kind": "browser_crashed", "resolved": true,
		"instance_config": {"mask_sample": true}}`)

	var resp v1_2_0.VerifyResponse // the core profile of contract 1.2.0
	if err := verifycontract.Decode(body, &resp); err != nil {
		fmt.Println("refuse:", err)
		return
	}
	masked, err := verifycontract.EffectiveMask(&resp)
	fmt.Println("reward:", resp.Reward, "masked:", masked, err)
	fmt.Println("kind registered:", resp.FailureKind.Registered())

	out, err := verifycontract.Encode(resp)
	fmt.Println(string(out), err)
	// Output:
	// reward: 1 masked: true <nil>
	// kind registered: false
	// {"reward":1,"failure_kind":"browser_crashed","resolved":true,"instance_config":{"mask_sample":true}} <nil>
}

// A producer builds a response in code; Encode refuses anything the contract forbids.
func ExampleEncode() {
	masked := true
	kind := v1_2_0.FailureKindJudgeFailed
	resp := v1_2_0.VerifyResponse{Reward: "0", MaskSample: &masked, FailureKind: &kind}
	_ = resp.Extra.Set("num_tool_calls", 3)
	out, err := verifycontract.Encode(resp)
	fmt.Println(string(out), err)
	// Output:
	// {"reward":0,"mask_sample":true,"failure_kind":"judge_failed","num_tool_calls":3} <nil>
}

// Validating without decoding: strict parse plus the JSON Schema of one version and profile.
func ExampleCheck() {
	_, err := verifycontract.Check([]byte(`{"reward": 0.5, "reward": 1}`), "1.2.0", verifycontract.Core)
	fmt.Println(err)
	_, err = verifycontract.Check([]byte(`{"reward": "0.5", "failure_kind": "Judge Failed"}`), "1.2.0", verifycontract.Core)
	fmt.Println(err)
	// Output:
	// json-duplicate-key at byte 14: duplicate member name "reward"
	// failure-kind-format at /failure_kind; reward-type at /reward
}
