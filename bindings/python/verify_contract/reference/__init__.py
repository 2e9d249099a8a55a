"""The reference: what every other path must agree with.

``_jsonio`` (strict JSON: I-JSON limits, duplicate keys, exact numbers), ``_validation`` (the JSON Schema
of a version through jsonschema, each finding mapped to the contract's rule), ``_semantic`` (the rules a
schema cannot state, by the fields' roles), ``_schema_messages`` and ``_text_findings`` (how findings are
worded). A document is read (member paths, the effective mask) as ``verify_contract.contract`` reads it. The
public names are exported by ``verify_contract`` itself.
"""
