// Command conformance runs the conformance vectors through the Go binding and prints one JSON
// object per vector: {"id", "valid", "rules", "pointers", "effective_mask", "encoded"} (the
// cross-language protocol, tests/bindings/test_cross_language.py).
//
// Usage: conformance VECTORS_DIR
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/verify-contract/verify-contract/bindings/go/internal/conformance"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: conformance VECTORS_DIR")
		os.Exit(2)
	}
	vectors, err := conformance.Load(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for _, vector := range vectors {
		if err := enc.Encode(conformance.Evaluate(vector)); err != nil {
			fmt.Fprintln(os.Stderr, "conformance:", vector.ID, err)
			os.Exit(1)
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}
