package verifycontract

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/verify-contract/verify-contract/bindings/go/jsonwire"
)

// SchemaRule is one row of the generated table that maps a schema violation at a location to a
// SPEC rule id (schema_rules_gen.json, from generators/schema_rules.py; format documented there).
type SchemaRule struct {
	Pointer string   `json:"pointer"`
	Keyword string   `json:"keyword"` // "required", "type" or "value"
	Rule    string   `json:"rule"`
	Types   []string `json:"types,omitempty"`
}

//go:embed schema_rules_gen.json
var schemaRulesJSON []byte

var schemaRules = func() map[string][]SchemaRule {
	var tables map[string][]SchemaRule
	if err := json.Unmarshal(schemaRulesJSON, &tables); err != nil {
		panic(fmt.Sprintf("the generated schema_rules_gen.json is not valid: %v", err))
	}
	return tables
}()

// Finding is one violated contract rule: its SPEC rule id and where (a JSON Pointer; a missing
// member is at the pointer it would have, SPEC 8.1). As JSON its members are "rule", "pointer" and
// "message", the names every verify-contract tool writes.
type Finding struct {
	Rule    string `json:"rule"`
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// Findings lists the rules a document breaks: the strict JSON text rule (one finding) for text
// Parse refuses, otherwise one finding per schema violation (a missing member, or a value of the
// wrong type or content). Empty means valid.
func Findings(data []byte, version string, profile Profile) ([]Finding, error) {
	doc, err := jsonwire.Parse(data)
	if err != nil {
		var textErr *jsonwire.Error
		if errors.As(err, &textErr) {
			return []Finding{{Rule: string(textErr.Rule), Message: textErr.Msg}}, nil
		}
		return nil, err
	}
	return SchemaFindings(doc, version, profile)
}

// SchemaFindings validates a parsed document and returns its findings (nil when valid).
func SchemaFindings(doc any, version string, profile Profile) ([]Finding, error) {
	err := Validate(doc, version, profile)
	var invalid *SchemaError
	if errors.As(err, &invalid) {
		return invalid.Findings, nil
	}
	return nil, err
}

// SchemaError is a document that breaks the schema: one Finding per violated location.
type SchemaError struct {
	Findings []Finding
	cause    *jsonschema.ValidationError
}

func (e *SchemaError) Error() string {
	parts := make([]string, len(e.Findings))
	for i, f := range e.Findings {
		where := f.Pointer
		if where == "" {
			where = "/"
		}
		parts[i] = fmt.Sprintf("%s at %s", f.Rule, where)
	}
	return strings.Join(parts, "; ")
}

// Unwrap gives the validator's own error, with every keyword that failed.
func (e *SchemaError) Unwrap() error { return e.cause }

func leaves(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if _, required := e.ErrorKind.(*kind.Required); required || len(e.Causes) == 0 {
		out = append(out, e)
	}
	for _, cause := range e.Causes {
		out = leaves(cause, out)
	}
	return out
}

func pointerOf(parts []string) string {
	var b strings.Builder
	for _, part := range parts {
		b.WriteString("/" + strings.ReplaceAll(strings.ReplaceAll(part, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func jsonType(value any) string {
	switch value.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number, float64, int, int64:
		return "number"
	case []any:
		return "array"
	default:
		return "object"
	}
}

func valueAt(doc any, parts []string) any {
	for _, part := range parts {
		object, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		doc = object[part]
	}
	return doc
}

// ruleFindings is the generic mapping: one finding per violated location, its rule from the table.
func ruleFindings(doc any, errs []*jsonschema.ValidationError, table []SchemaRule) []Finding {
	row := func(pointer, keyword string) *SchemaRule {
		for i := range table {
			if table[i].Pointer == pointer && table[i].Keyword == keyword {
				return &table[i]
			}
		}
		return nil
	}
	var found []Finding
	seen := map[string]bool{}
	for _, e := range errs {
		if required, ok := e.ErrorKind.(*kind.Required); ok {
			for _, name := range required.Missing {
				pointer := pointerOf(append(append([]string{}, e.InstanceLocation...), name))
				if seen["required "+pointer] {
					continue
				}
				seen["required "+pointer] = true
				rule := FallbackRule
				if r := row(pointer, "required"); r != nil {
					rule = r.Rule
				}
				found = append(found, Finding{Rule: rule, Pointer: pointer, Message: "required member is missing"})
			}
			continue
		}
		pointer := pointerOf(e.InstanceLocation)
		if seen[pointer] {
			continue
		}
		seen[pointer] = true
		rule := FallbackRule
		typeRow := row(pointer, "type")
		admitted := false
		if typeRow != nil {
			actual := jsonType(valueAt(doc, e.InstanceLocation))
			for _, t := range typeRow.Types {
				admitted = admitted || t == actual
			}
		}
		if typeRow != nil && !admitted {
			rule = typeRow.Rule
		} else if r := row(pointer, "value"); r != nil {
			rule = r.Rule
		}
		found = append(found, Finding{Rule: rule, Pointer: pointer, Message: e.Error()})
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].Pointer < found[j].Pointer })
	return found
}
