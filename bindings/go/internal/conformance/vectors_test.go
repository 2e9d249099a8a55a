package conformance

import (
	"errors"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/verify-contract/verify-contract/bindings/go/jsonwire"
)

// jsonRule is the vector's JSON-text rule (json-*), if it has one.
func jsonRule(findings []string) string {
	for _, rule := range findings {
		if strings.HasPrefix(rule, "json-") {
			return rule
		}
	}
	return ""
}

// vectorsDir is the repository's vectors/, found from this file so the test runs from any cwd.
func vectorsDir(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "vectors")
}

func loadVectors(t *testing.T) []Vector {
	vectors, err := Load(vectorsDir(t))
	if err != nil {
		t.Fatal(err)
	}
	return vectors
}

// TestVectors runs every vector: the verdict, the effective mask and the round trip must match.
func TestVectors(t *testing.T) {
	vectors := loadVectors(t)
	if len(vectors) < 100 {
		t.Fatalf("only %d vectors loaded", len(vectors))
	}
	for _, v := range vectors {
		t.Run(v.ID, func(t *testing.T) {
			out := Evaluate(v)
			if out.Valid != v.Valid {
				t.Fatalf("valid = %v, want %v (parse: %v; schema: %v; typed: %v)", out.Valid, v.Valid, out.ParseErr, out.SchemaErr, out.TypedErr)
			}
			if want := jsonRule(v.Findings); want != "" {
				var parseErr *jsonwire.Error
				if !errors.As(out.ParseErr, &parseErr) || string(parseErr.Rule) != want {
					t.Fatalf("parse error %v, want rule %s", out.ParseErr, want)
				}
			} else if out.ParseErr != nil {
				t.Fatalf("unexpected parse error %v", out.ParseErr)
			}
			if v.Pointers != nil && !slices.Equal(out.Pointers, v.Pointers) {
				t.Fatalf("errors at %v, want %v (SPEC 8.1)", out.Pointers, v.Pointers)
			}
			if out.ParseErr == nil && (out.SchemaErr == nil) != (out.TypedErr == nil) {
				t.Fatalf("the schema validator and the typed decoder disagree: schema %v, typed %v", out.SchemaErr, out.TypedErr)
			}
			if !v.Valid {
				if out.EffectiveMask != nil || out.Encoded != nil {
					t.Fatalf("an invalid vector got a mask or an encoding: %+v", out)
				}
				return
			}
			switch {
			case v.EffectiveMask == nil && out.EffectiveMask != nil:
				t.Fatalf("effective mask = %v, want a refusal", *out.EffectiveMask)
			case v.EffectiveMask != nil && out.EffectiveMask == nil:
				t.Fatalf("effective mask refused (%v), want %v", out.MaskErr, *v.EffectiveMask)
			case v.EffectiveMask != nil && *out.EffectiveMask != *v.EffectiveMask:
				t.Fatalf("effective mask = %v, want %v", *out.EffectiveMask, *v.EffectiveMask)
			}
			if !v.RoundTrip {
				return
			}
			if out.Encoded == nil {
				t.Fatalf("no encoding: %v", out.EncodeErr)
			}
			same, err := SameValue(v.Text, out.Encoded)
			if err != nil || !same {
				t.Fatalf("round trip changed the value (%v):\n in: %s\nout: %s", err, v.Text, out.Encoded)
			}
			in, _ := KeyOrder(v.Text)
			got, err := KeyOrder(out.Encoded)
			if err != nil || !slices.Equal(in, got) {
				t.Fatalf("round trip changed the member order:\n in: %v\nout: %v", in, got)
			}
		})
	}
}

// TestRoundTripCoverage guards against a vacuous round-trip test.
func TestRoundTripCoverage(t *testing.T) {
	count := 0
	for _, v := range loadVectors(t) {
		if v.RoundTrip {
			count++
		}
	}
	if count < 50 {
		t.Fatalf("only %d round-trip vectors", count)
	}
}

// TestPointerCoverage guards against a vacuous pointer check: vectors pin where missing members
// are, top-level and nested (SPEC 8.1).
func TestPointerCoverage(t *testing.T) {
	depths := map[int]bool{}
	for _, v := range loadVectors(t) {
		for _, place := range v.Pointers {
			if strings.HasSuffix(place.Rule, "-required") {
				depths[strings.Count(place.Pointer, "/")] = true
			}
		}
	}
	if !depths[1] || !depths[2] {
		t.Fatalf("missing-member pointers pinned at depths %v; want 1 and 2", depths)
	}
}
