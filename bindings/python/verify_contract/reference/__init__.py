"""The reference: what every other path must agree with.

``_jsonio`` (strict JSON: I-JSON limits, duplicate keys, exact numbers), ``_validation`` (the JSON Schema
of a version through jsonschema, each finding mapped to the contract's rule), ``_semantic`` (the rules a
schema cannot state, by the fields' roles), ``_schema_messages`` and ``_text_findings`` (how findings are
worded). A document is read (member paths, the effective mask) as ``verify_contract.contract`` reads it.

Every other package imports these names from here, each on first use: the validator (jsonschema) and the
strict parser stay out of a run that never needs them (``check``'s start-up). The user-facing ones are also
exported by ``verify_contract`` itself.
"""

from __future__ import annotations

from verify_contract._lazy import lazy_exports

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from verify_contract.reference._jsonio import Parsed, json_equal, parse_json
    from verify_contract.reference._schema_messages import json_text, schema_error_message
    from verify_contract.reference._semantic import (
        deprecations,
        ecma_search,
        registered_kinds,
        role_fields,
        semantic_findings,
    )
    from verify_contract.reference._text_findings import (
        CODED_SYNTAX_TAGS,
        NON_FINITE_RULE,
        NON_FINITE_TOKENS,
        SYNTAX_MESSAGES,
        UTF8_REASONS,
        bom_finding,
        duplicate_name_finding,
        invalid_utf8_finding,
        non_finite_token_finding,
        syntax_finding,
        too_deep_finding,
    )
    from verify_contract.reference._validation import (
        ContractValidator,
        ValidationResult,
        judge,
        schema_findings,
        validate,
    )

_HOME = {
    **dict.fromkeys(("Parsed", "json_equal", "parse_json"), "_jsonio"),
    **dict.fromkeys(("json_text", "schema_error_message"), "_schema_messages"),
    **dict.fromkeys(
        ("deprecations", "ecma_search", "registered_kinds", "role_fields", "semantic_findings"),
        "_semantic",
    ),
    **dict.fromkeys(
        (
            "CODED_SYNTAX_TAGS",
            "NON_FINITE_RULE",
            "NON_FINITE_TOKENS",
            "SYNTAX_MESSAGES",
            "UTF8_REASONS",
            "bom_finding",
            "duplicate_name_finding",
            "invalid_utf8_finding",
            "non_finite_token_finding",
            "syntax_finding",
            "too_deep_finding",
        ),
        "_text_findings",
    ),
    **dict.fromkeys(("ContractValidator", "ValidationResult", "judge", "schema_findings", "validate"), "_validation"),
}
__getattr__ = lazy_exports(__name__, _HOME)

__all__ = [
    "CODED_SYNTAX_TAGS",
    "NON_FINITE_RULE",
    "NON_FINITE_TOKENS",
    "SYNTAX_MESSAGES",
    "UTF8_REASONS",
    "ContractValidator",
    "Parsed",
    "ValidationResult",
    "bom_finding",
    "deprecations",
    "duplicate_name_finding",
    "ecma_search",
    "invalid_utf8_finding",
    "json_equal",
    "json_text",
    "judge",
    "non_finite_token_finding",
    "parse_json",
    "registered_kinds",
    "role_fields",
    "schema_error_message",
    "schema_findings",
    "semantic_findings",
    "syntax_finding",
    "too_deep_finding",
    "validate",
]
