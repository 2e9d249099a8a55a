// Package conformance runs the language-neutral conformance vectors through the Go binding; the
// runner (cmd/conformance) prints its outcomes and the tests assert them.
package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"sort"

	verifycontract "github.com/verify-contract/verify-contract/bindings/go"
	"github.com/verify-contract/verify-contract/bindings/go/jsonwire"
)

// SchemaFile is the vectors' own schema, not a vector file.
const SchemaFile = "vectors.schema.json"

// Vector is one conformance vector, with the document as the JSON text a producer would send.
type Vector struct {
	File          string
	ID            string
	Version       string
	Profile       verifycontract.Profile
	Text          []byte
	Valid         bool
	EffectiveMask *bool
	RoundTrip     bool
	Findings      []string // rule ids (the Python reference's detail; here only json-* rules are compared)
	Pointers      []Place  // where each error is, when the vector pins it (nil otherwise)
}

// Place is where one error is: its rule id and JSON Pointer (a vector's "pointers" entry).
type Place struct {
	Rule    string `json:"rule"`
	Pointer string `json:"pointer"`
}

type vectorFile struct {
	Tests []struct {
		ID              string          `json:"id"`
		ContractVersion string          `json:"contract_version"`
		Profile         string          `json:"profile"`
		Instance        json.RawMessage `json:"instance"`
		InstanceJSON    *string         `json:"instance_json"`
		Valid           bool            `json:"valid"`
		EffectiveMask   *bool           `json:"effective_mask"`
		RoundTrip       *bool           `json:"round_trip"`
		Findings        []string        `json:"findings"`
		Pointers        []Place         `json:"pointers"`
	} `json:"tests"`
}

// Load reads every vector file in dir, files sorted by name, tests in file order.
func Load(dir string) ([]Vector, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var vectors []Vector
	for _, name := range names {
		if filepath.Base(name) == SchemaFile {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var file vectorFile
		if err := json.Unmarshal(data, &file); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, t := range file.Tests {
			// The instance's own text in the file is a serialization of it: exact numbers, same key order.
			text := []byte(t.Instance)
			if t.InstanceJSON != nil {
				text = []byte(*t.InstanceJSON)
			} else if t.Instance == nil {
				return nil, fmt.Errorf("%s: %s has neither instance nor instance_json", name, t.ID)
			}
			roundTrip := t.Valid
			if t.RoundTrip != nil {
				roundTrip = *t.RoundTrip
			}
			vectors = append(vectors, Vector{
				File: filepath.Base(name), ID: t.ID, Version: t.ContractVersion,
				Profile: verifycontract.Profile(t.Profile), Text: text, Valid: t.Valid,
				EffectiveMask: t.EffectiveMask, RoundTrip: roundTrip, Findings: t.Findings, Pointers: t.Pointers,
			})
		}
	}
	if len(vectors) == 0 {
		return nil, fmt.Errorf("no vectors in %s", dir)
	}
	return vectors, nil
}

// Outcome is what the binding makes of one vector; the JSON fields are the runner protocol's.
type Outcome struct {
	ID            string          `json:"id"`
	Valid         bool            `json:"valid"`
	Rules         []string        `json:"rules"`    // error rule ids, sorted (empty when valid)
	Pointers      []Place         `json:"pointers"` // each error's rule and pointer, sorted by rule then pointer
	EffectiveMask *bool           `json:"effective_mask"`
	Encoded       json.RawMessage `json:"encoded"`

	ParseErr  error `json:"-"` // strict JSON text rules
	SchemaErr error `json:"-"` // the JSON Schema validator
	TypedErr  error `json:"-"` // the generated type's decoder
	MaskErr   error `json:"-"`
	EncodeErr error `json:"-"`
}

// Evaluate runs one vector: strict parse, schema validation and typed decode must all accept it.
func Evaluate(v Vector) Outcome {
	out := Outcome{ID: v.ID, Rules: []string{}, Pointers: []Place{}}
	findings, err := verifycontract.Findings(v.Text, v.Version, v.Profile)
	if err != nil {
		out.SchemaErr = err
		return out
	}
	for _, finding := range findings {
		out.Rules = append(out.Rules, finding.Rule)
		out.Pointers = append(out.Pointers, Place{Rule: finding.Rule, Pointer: finding.Pointer})
	}
	sort.Strings(out.Rules)
	sort.Slice(out.Pointers, func(i, j int) bool {
		a, b := out.Pointers[i], out.Pointers[j]
		return a.Rule < b.Rule || (a.Rule == b.Rule && a.Pointer < b.Pointer)
	})
	doc, err := verifycontract.Parse(v.Text)
	if err != nil {
		out.ParseErr = err
		return out
	}
	out.SchemaErr = verifycontract.Validate(doc, v.Version, v.Profile)
	typed, err := verifycontract.NewDocument(v.Version, v.Profile)
	if err != nil {
		out.TypedErr = err
		return out
	}
	out.TypedErr = typed.UnmarshalJSON(v.Text)
	out.Valid = out.SchemaErr == nil && out.TypedErr == nil
	if !out.Valid {
		return out
	}
	if mask, err := verifycontract.EffectiveMask(doc); err == nil {
		out.EffectiveMask = &mask
	} else {
		out.MaskErr = err
	}
	if v.RoundTrip {
		encoded, err := typed.MarshalJSON()
		if err != nil {
			out.EncodeErr = err
		} else {
			out.Encoded = encoded
		}
	}
	return out
}

// SameValue reports whether two JSON texts hold the same value, numbers compared exactly by value
// (1 == 1.0, 1.5e-07 == 0.00000015).
func SameValue(a, b []byte) (bool, error) {
	va, err := jsonwire.Parse(a)
	if err != nil {
		return false, err
	}
	vb, err := jsonwire.Parse(b)
	if err != nil {
		return false, err
	}
	return sameValue(va, vb), nil
}

func sameValue(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, okx := new(big.Rat).SetString(string(x))
		ry, oky := new(big.Rat).SetString(string(y))
		return okx && oky && rx.Cmp(ry) == 0
	default:
		return a == b
	}
}

// KeyOrder lists every member name of a JSON text in document order, each prefixed with its
// depth, to compare the member order of two texts.
func KeyOrder(data []byte) ([]string, error) {
	type level struct{ object, expectKey bool }
	dec := json.NewDecoder(bytes.NewReader(data))
	var keys []string
	var stack []level
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return keys, nil
		}
		if err != nil {
			return nil, err
		}
		if name, ok := tok.(string); ok && len(stack) > 0 && stack[len(stack)-1].expectKey {
			keys = append(keys, fmt.Sprintf("%d:%s", len(stack), name))
			stack[len(stack)-1].expectKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, level{object: true, expectKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, level{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended; inside an object the next string is a member name.
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].expectKey = true
		}
	}
}
