module github.com/verify-contract/verify-contract/bindings/go

go 1.24

require github.com/santhosh-tekuri/jsonschema/v6 v6.0.2

require golang.org/x/text v0.14.0 // indirect
