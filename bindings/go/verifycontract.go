// Package verifycontract is the Go binding of the verify-response contract: strict JSON parsing,
// schema validation per contract version and profile, typed decode/encode that keeps unknown
// members, and the effective mask.
//
// The types live in one generated package per contract version (v1_0_0, v1_1_0, v1_2_0); this
// package holds the hand-written runtime around them.
package verifycontract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/verify-contract/verify-contract/bindings/go/jsonwire"
)

// Profile names a set of required fields; the profiles (Core, Gym, ...) and DefaultProfile are
// generated from the contract (versions_gen.go).
type Profile string

// Encodable is a generated profile type of one contract version, as a value or a pointer,
// e.g. v1_2_0.VerifyResponse.
type Encodable interface {
	json.Marshaler
	ContractVersion() string
	ContractProfile() string
}

// Document is a pointer to a generated profile type, which can also be decoded into,
// e.g. *v1_2_0.VerifyResponse.
type Document interface {
	Encodable
	json.Unmarshaler
}

type binding struct {
	version     string
	profile     Profile
	schema      []byte
	ref         string
	newDocument func() Document

	once     sync.Once
	compiled *jsonschema.Schema
	err      error
}

func lookup(version string, profile Profile) (*binding, error) {
	for i := range bindings {
		if bindings[i].version == version && bindings[i].profile == profile {
			return &bindings[i], nil
		}
	}
	return nil, fmt.Errorf("unknown contract version %q or profile %q (versions: %v; profiles: %v)", version, profile, Versions, Profiles)
}

// refuseLoading keeps the validator offline: every schema it needs is embedded.
type refuseLoading struct{}

func (refuseLoading) Load(url string) (any, error) {
	return nil, fmt.Errorf("refusing to load %s: the contract schemas are embedded", url)
}

func (b *binding) validator() (*jsonschema.Schema, error) {
	b.once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.schema))
		if err != nil {
			b.err = err
			return
		}
		id, _ := doc.(map[string]any)["$id"].(string)
		compiler := jsonschema.NewCompiler()
		compiler.UseLoader(refuseLoading{})
		if b.err = compiler.AddResource(id, doc); b.err != nil {
			return
		}
		b.compiled, b.err = compiler.Compile(id + b.ref)
	})
	return b.compiled, b.err
}

// NewDocument returns an empty value of the Go type of one profile at one version, for code that
// chooses the version at run time.
func NewDocument(version string, profile Profile) (Document, error) {
	b, err := lookup(version, profile)
	if err != nil {
		return nil, err
	}
	return b.newDocument(), nil
}

// Parse parses one JSON text strictly (see jsonwire.Parse). Errors are *jsonwire.Error.
func Parse(data []byte) (any, error) { return jsonwire.Parse(data) }

// Validate checks a parsed document (from Parse) against one profile of one contract version
// with a JSON Schema 2020-12 validator. A violation is a *SchemaError: one Finding, with its SPEC
// rule id, per violated location (it unwraps to the validator's *jsonschema.ValidationError).
func Validate(doc any, version string, profile Profile) error {
	err := validateSchema(doc, version, profile)
	var invalid *jsonschema.ValidationError
	if !errors.As(err, &invalid) {
		return err
	}
	return &SchemaError{Findings: ruleFindings(doc, leaves(invalid, nil), schemaRules[version]), cause: invalid}
}

func validateSchema(doc any, version string, profile Profile) error {
	b, err := lookup(version, profile)
	if err != nil {
		return err
	}
	schema, err := b.validator()
	if err != nil {
		return fmt.Errorf("compiling the %s schema: %w", version, err)
	}
	return schema.Validate(doc)
}

// Check parses data strictly and validates it; it returns the parsed document.
func Check(data []byte, version string, profile Profile) (any, error) {
	doc, err := jsonwire.Parse(data)
	if err != nil {
		return nil, err
	}
	if err := Validate(doc, version, profile); err != nil {
		return nil, err
	}
	return doc, nil
}

// Decode checks data (strict parse and schema validation at dst's version and profile) and
// decodes it into dst, e.g. a *v1_2_0.VerifyResponse.
func Decode(data []byte, dst Document) error {
	if _, err := Check(data, dst.ContractVersion(), Profile(dst.ContractProfile())); err != nil {
		return err
	}
	return dst.UnmarshalJSON(data)
}

// Encode writes doc as JSON and checks the result against doc's version and profile, so a value
// built in code cannot leave the process if it breaks the contract.
func Encode(doc Encodable) ([]byte, error) {
	data, err := doc.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if _, err := Check(data, doc.ContractVersion(), Profile(doc.ContractProfile())); err != nil {
		return nil, fmt.Errorf("the encoded document breaks the contract: %w", err)
	}
	return data, nil
}

// ErrMaskType is a mask field holding a non-boolean: refuse the document rather than guess.
var ErrMaskType = errors.New("mask field is not a boolean")

// EffectiveMask is the mask a trainer must honour (SPEC 4.2): true when any mask location of the
// newest contract version (maskPaths: the mask and its legacy location, read on every 1.x document)
// holds true; absent means false, and so does a location under a member that is not an object. doc is
// a parsed document (from Parse) or a generated type. A present non-boolean (null included) is an
// error wrapping ErrMaskType that names the location: "false" must not become true.
func EffectiveMask(doc any) (bool, error) {
	if typed, ok := doc.(Encodable); ok {
		data, err := typed.MarshalJSON()
		if err != nil {
			return false, err
		}
		if doc, err = jsonwire.Parse(data); err != nil {
			return false, err
		}
	}
	object, ok := doc.(map[string]any)
	if !ok {
		return false, fmt.Errorf("the document is %T, not an object", doc)
	}
	masked := false
	for _, path := range maskPaths {
		set, err := flag(object, path)
		if err != nil {
			return false, err
		}
		masked = masked || set
	}
	return masked, nil
}

// flag is the boolean at path (member names from the document root); absent, or under a member that
// is not an object, is false.
func flag(document map[string]any, path []string) (bool, error) {
	holder := document
	for _, name := range path[:len(path)-1] {
		inner, ok := holder[name].(map[string]any)
		if !ok {
			return false, nil
		}
		holder = inner
	}
	value, present := holder[path[len(path)-1]]
	if !present {
		return false, nil
	}
	b, ok := value.(bool)
	if !ok {
		return false, fmt.Errorf("%w: %s is %v", ErrMaskType, strings.Join(path, "."), value)
	}
	return b, nil
}
