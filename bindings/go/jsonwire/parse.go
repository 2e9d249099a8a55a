// Package jsonwire reads and writes JSON text the way the verify-response contract requires:
// strict parsing (RFC 8259 with I-JSON's restrictions and a nesting limit), and objects that keep
// the members a type does not declare, in document order, so decode then encode loses nothing.
package jsonwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// Rule identifies what is wrong with a JSON text; the ids are the contract's finding rules.
type Rule string

const (
	RuleSyntax       Rule = "json-syntax"
	RuleDuplicateKey Rule = "json-duplicate-key"
	RuleNonFinite    Rule = "json-non-finite"
	RuleTooDeep      Rule = "json-too-deep"
)

// Error is a JSON text that breaks one of the strict rules.
type Error struct {
	Rule   Rule
	Offset int64 // byte offset near the defect
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("%s at byte %d: %s", e.Rule, e.Offset, e.Msg) }

func errorf(rule Rule, offset int64, format string, args ...any) *Error {
	return &Error{Rule: rule, Offset: offset, Msg: fmt.Sprintf(format, args...)}
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// frame is one open array or object while parsing.
type frame struct {
	object  map[string]any
	array   []any
	isObj   bool
	key     string
	haveKey bool
}

// Parse parses one JSON text strictly: UTF-8 without BOM, one value, unique member names at every
// depth, finite numbers (no NaN/Infinity tokens, nothing that overflows a float64), at most
// MaxDepth levels. Objects become map[string]any, arrays []any and numbers json.Number (exact
// text). encoding/json alone would keep the last duplicate silently and replace invalid UTF-8.
func Parse(data []byte) (any, error) {
	if bytes.HasPrefix(data, utf8BOM) {
		return nil, errorf(RuleSyntax, 0, "the text starts with a byte order mark (RFC 8259 forbids it)")
	}
	if !utf8.Valid(data) {
		return nil, errorf(RuleSyntax, 0, "the text is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*frame
	var root any
	done := false
	justOpened := false // the last token opened an array or object
	// add places a finished value into the enclosing container, or makes it the root.
	add := func(value any) {
		if len(stack) == 0 {
			root, done = value, true
			return
		}
		top := stack[len(stack)-1]
		if top.isObj {
			top.object[top.key] = value
			top.haveKey = false
		} else {
			top.array = append(top.array, value)
		}
	}
	for {
		offset := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			if done {
				return root, nil
			}
			return nil, errorf(RuleSyntax, offset, "unexpected end of text")
		}
		if err != nil {
			return nil, classify(err, data, offset, nextIsValue(data[offset:], stack, done, justOpened))
		}
		justOpened = false
		if done {
			return nil, errorf(RuleSyntax, offset, "more than one value in the text")
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if len(stack)+1 > MaxDepth {
					return nil, errorf(RuleTooDeep, offset, "the value nests deeper than %d levels", MaxDepth)
				}
				if t == '{' {
					stack = append(stack, &frame{object: map[string]any{}, isObj: true})
				} else {
					stack = append(stack, &frame{array: []any{}})
				}
				justOpened = true
			default: // '}' or ']': the decoder has checked they match
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if top.isObj {
					add(top.object)
				} else {
					add(top.array)
				}
			}
		case string:
			if err := checkSurrogates(data[offset:dec.InputOffset()]); err != nil {
				err.Offset = offset
				return nil, err
			}
			if top := topFrame(stack); top != nil && top.isObj && !top.haveKey {
				if _, seen := top.object[t]; seen {
					return nil, errorf(RuleDuplicateKey, offset, "duplicate member name %q", t)
				}
				top.key, top.haveKey = t, true
				continue
			}
			add(t)
		case json.Number:
			if err := checkFinite(t); err != nil {
				err.Offset = offset
				return nil, err
			}
			add(t)
		default: // bool or nil
			add(t)
		}
	}
}

func topFrame(stack []*frame) *frame {
	if len(stack) == 0 {
		return nil
	}
	return stack[len(stack)-1]
}

// checkSurrogates rejects a \uD800-\uDFFF escape that is not half of a surrogate pair (I-JSON:
// strings are Unicode). encoding/json would silently turn it into U+FFFD. raw is the token's text.
func checkSurrogates(raw []byte) *Error {
	if !bytes.Contains(raw, []byte(`\u`)) {
		return nil
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] != 'u' || i+6 > len(raw) {
			i++ // a two-byte escape such as \\ or \n
			continue
		}
		code, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
		if err != nil {
			return nil // the decoder has already accepted the token; leave syntax to it
		}
		switch {
		case code >= 0xD800 && code <= 0xDBFF:
			next := raw[i+6:]
			if len(next) >= 6 && next[0] == '\\' && next[1] == 'u' {
				if low, err := strconv.ParseUint(string(next[2:6]), 16, 16); err == nil && low >= 0xDC00 && low <= 0xDFFF {
					i += 11
					continue
				}
			}
			return errorf(RuleSyntax, 0, "unpaired surrogate escape \\u%04X (I-JSON: strings are Unicode)", code)
		case code >= 0xDC00 && code <= 0xDFFF:
			return errorf(RuleSyntax, 0, "unpaired surrogate escape \\u%04X (I-JSON: strings are Unicode)", code)
		}
		i += 5
	}
	return nil
}

// checkFinite rejects numbers that overflow to ±Inf (1e400); underflow to 0 is a finite number.
func checkFinite(n json.Number) *Error {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && (math.IsInf(f, 0) || !errors.Is(err, strconv.ErrRange)) {
		return errorf(RuleNonFinite, 0, "%s overflows to infinity", n)
	}
	return nil
}

// nextIsValue reports whether the grammar expects a value at the start of rest (after the separator
// the decoder consumes with the next token), and returns the text where that value starts.
func nextIsValue(rest []byte, stack []*frame, done, justOpened bool) []byte {
	rest = bytes.TrimLeft(rest, " \t\r\n")
	top := topFrame(stack)
	var separator byte
	switch {
	case top == nil && done:
		return nil
	case top == nil:
		return rest
	case top.isObj && !top.haveKey:
		return nil
	case top.isObj:
		separator = ':'
	case !justOpened:
		separator = ','
	}
	if separator != 0 {
		if len(rest) == 0 || rest[0] != separator {
			return nil
		}
		rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	}
	return rest
}

// classify turns a decoder error into a rule: a NaN, Infinity or -Infinity token where the grammar
// expects a value is json-non-finite (SPEC.md 2.1), anything else json-syntax. value is the text from
// where a value is expected, or nil when none is.
func classify(err error, data []byte, offset int64, value []byte) *Error {
	for _, token := range []string{"NaN", "Infinity", "-Infinity"} {
		if bytes.HasPrefix(value, []byte(token)) {
			return errorf(RuleNonFinite, offset, "%s is not a JSON number", token)
		}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errorf(RuleSyntax, offset, "unexpected end of text")
	}
	return errorf(RuleSyntax, offset, "%v", err)
}
