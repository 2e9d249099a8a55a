"""The differ's rule catalogue: a stable id per kind of change, its severity, what it breaks, the bump it needs.

Rule ids are public API (CI configurations and reviews quote them): never rename or reuse one.
docs/diff-rules.md is generated from this table (``python -m generators``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from verify_contract.findings import Finding, Severity


class Break(str, Enum):
    """Who a change breaks (docs/compatibility.md, "Directions")."""

    BACKWARD = "backward"
    """New consumers reading documents written by old producers (Confluent BACKWARD)."""
    FORWARD = "forward"
    """Old consumers reading documents written by new producers (Confluent FORWARD)."""
    BINDINGS = "bindings"
    """Code importing the generated bindings (class, alias, field and constant names and types)."""


class Bump(str, Enum):
    NONE = "none"
    PATCH = "patch"
    MINOR = "minor"
    MAJOR = "major"

    @property
    def rank(self) -> int:
        return list(Bump).index(self)


def direction_label(breaks: frozenset[Break]) -> str:
    """``backward`` + ``forward`` is Confluent's FULL; bindings are listed after the wire."""
    wire = {Break.BACKWARD, Break.FORWARD} & breaks
    parts = ["full"] if len(wire) == 2 else [b.value for b in (Break.BACKWARD, Break.FORWARD) if b in wire]
    if Break.BINDINGS in breaks:
        parts.append(Break.BINDINGS.value)
    return "+".join(parts) or "none"


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    breaks: frozenset[Break]
    bump: Bump
    summary: str
    why: str
    example: str
    forbidden: bool = False
    """A policy violation no version bump makes acceptable (OpenTelemetry-style registry rules)."""

    @property
    def direction(self) -> str:
        return direction_label(self.breaks)


B, F, K = Break.BACKWARD, Break.FORWARD, Break.BINDINGS
E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741 - I is info, as in the severity column


def _r(
    rule_id: str,
    severity: Severity,
    breaks: set[Break],
    bump: Bump,
    summary: str,
    why: str,
    example: str,
    forbidden: bool = False,
) -> Rule:
    return Rule(rule_id, severity, frozenset(breaks), bump, summary, why, example, forbidden)


_RULES = (
    # --- objects: properties and required -------------------------------------------------------
    _r(
        "PROPERTY_ADDED",
        I,
        set(),
        Bump.MINOR,
        "An optional property was added to an open object.",
        "Old consumers ignore the unknown key and new consumers accept documents without it. The contract reserves "
        "undeclared names for its own future versions, so a document that already used the name with another type "
        "becomes invalid: the corpus effect lists such documents (see docs/compatibility.md, open content).",
        "1.1.0 -> 1.2.0 adds `failure_kind` to VerifyResponse.",
    ),
    _r(
        "PROPERTY_ADDED_WITH_DEFAULT",
        I,
        set(),
        Bump.MINOR,
        "An optional property with a `default` was added to an open object.",
        "As PROPERTY_ADDED; the default also gives documents from old producers, which omit the property, a meaning "
        "(absent = default). Reviewers check that the default is what old producers meant.",
        "1.1.0 -> 1.2.0 adds `mask_sample` with default false: old documents are read as not masked.",
    ),
    _r(
        "PROPERTY_ADDED_TO_CLOSED_OBJECT",
        E,
        {F},
        Bump.MAJOR,
        "A property was added to an object with `additionalProperties: false`.",
        "Old consumers reject any key they do not know in a closed object, so documents of new producers that "
        "use the property fail at old consumers.",
        "`{additionalProperties: false}` object gains `detail`.",
    ),
    _r(
        "REQUIRED_PROPERTY_ADDED",
        E,
        {B},
        Bump.MAJOR,
        "A new property is required.",
        "Documents of old producers lack it and fail at new consumers. A `default` does not help: JSON Schema "
        "validation never fills defaults in.",
        "VerifyResponse gains a required `episode_id`.",
    ),
    _r(
        "PROPERTY_REMOVED",
        E,
        {F, K},
        Bump.MAJOR,
        "An optional property was removed from an open object.",
        "The name becomes an unknown key: new producers may write anything there, which old consumers (who still "
        "type-check it) reject; the binding field disappears, breaking code that reads it.",
        "`failure_reason` removed from VerifyResponse.",
    ),
    _r(
        "PROPERTY_REMOVED_FROM_CLOSED_OBJECT",
        E,
        {B, K},
        Bump.MAJOR,
        "An optional property was removed from an object with `additionalProperties: false`.",
        "Documents of old producers that carry the property are rejected by new consumers; the binding field "
        "disappears.",
        "A closed object loses its `detail` property.",
    ),
    _r(
        "REQUIRED_PROPERTY_REMOVED",
        E,
        {B, F, K},
        Bump.MAJOR,
        "A required property was removed.",
        "Old consumers still require it and reject documents of new producers that omit it; the binding field "
        "disappears.",
        "`reward` removed.",
    ),
    _r(
        "PROPERTY_MADE_REQUIRED",
        E,
        {B},
        Bump.MAJOR,
        "An existing property became required.",
        "Documents of old producers that omit it fail at new consumers.",
        "`mask_sample` added to `required`.",
    ),
    _r(
        "PROPERTY_MADE_OPTIONAL",
        E,
        {F, K},
        Bump.MAJOR,
        "A required property became optional.",
        "New producers may omit it and old consumers, which require it, reject their documents; the binding type "
        "changes from required to NotRequired/optional.",
        "`reward` removed from `required`.",
    ),
    _r(
        "ADDITIONAL_PROPERTIES_CLOSED",
        E,
        {B, K},
        Bump.MAJOR,
        "An open object was closed (`additionalProperties` became false or a schema).",
        "Documents of old producers with unknown keys are rejected by new consumers, and the bindings stop "
        "preserving unknown keys on a round trip.",
        "VerifyResponse gets `additionalProperties: false`.",
    ),
    _r(
        "ADDITIONAL_PROPERTIES_OPENED",
        E,
        {F, K},
        Bump.MAJOR,
        "A closed object was opened (`additionalProperties` became true or was dropped).",
        "New producers may add keys that old consumers reject; the bindings change (`extra='allow'`).",
        "A closed object gets `additionalProperties: true`.",
    ),
    _r(
        "OPEN_CONTENT_MADE_IMPLICIT",
        I,
        set(),
        Bump.PATCH,
        "An explicit `additionalProperties: true` was removed from an object that stays open.",
        "Spelling only: validation is unchanged (absent means open), and the bindings are generated from the "
        "resolved model, where both spellings are open, so every binding keeps unknown keys as before (checked "
        "against the generator: tests/diff/test_diff_bindings_effect.py).",
        "InstanceConfig loses `additionalProperties: true`.",
    ),
    _r(
        "OPEN_CONTENT_MADE_EXPLICIT",
        I,
        set(),
        Bump.PATCH,
        "An open object gained an explicit `additionalProperties: true`.",
        "Spelling only: validation and the generated bindings are unchanged (tests/diff/test_diff_bindings_effect.py).",
        "A definition without `additionalProperties` gets `additionalProperties: true`.",
    ),
    # --- types and values -----------------------------------------------------------------------
    _r(
        "TYPE_NARROWED",
        E,
        {B, K},
        Bump.MAJOR,
        "A JSON type is no longer accepted.",
        "Documents of old producers with a value of that type fail at new consumers; the binding type changes.",
        "`reward` from `number` to `integer`.",
    ),
    _r(
        "TYPE_WIDENED",
        E,
        {F, K},
        Bump.MAJOR,
        "A JSON type is newly accepted.",
        "New producers may write values that old consumers reject; the binding type changes.",
        "`reward` from `number` to `[number, string]`.",
    ),
    _r(
        "NULLABLE_ADDED",
        E,
        {F, K},
        Bump.MAJOR,
        "`null` is newly accepted.",
        "New producers may write null, which old consumers reject or mishandle; the binding type becomes optional "
        "(`X | None`), which breaks type-checked code.",
        "`mask_sample` from `boolean` to `[boolean, null]`.",
    ),
    _r(
        "NULLABLE_REMOVED",
        E,
        {B, K},
        Bump.MAJOR,
        "`null` is no longer accepted.",
        "Documents of old producers that send null fail at new consumers.",
        "`failure_reason` from `[string, null]` to `string`.",
    ),
    _r(
        "ENUM_VALUE_ADDED",
        E,
        {F, K},
        Bump.MAJOR,
        "A value was added to a closed enum.",
        "Old consumers, whose enum lacks the value, reject documents of new producers that use it.",
        "A closed `status` enum gains `partial`.",
    ),
    _r(
        "ENUM_VALUE_REMOVED",
        E,
        {B, K},
        Bump.MAJOR,
        "A value was removed from a closed enum.",
        "Documents of old producers using the value fail at new consumers; the binding member disappears.",
        "A closed `status` enum loses `partial`.",
    ),
    _r(
        "OPEN_ENUM_VALUE_ADDED",
        I,
        set(),
        Bump.MINOR,
        "A value was added to an open enum (an enum next to a pattern that already accepts the value).",
        "Every consumer already accepts the value through the pattern branch; the bindings gain a member. This is "
        "how a failure kind is registered.",
        "`failure_kinds.schema.json` gains `sandbox_crashed`.",
    ),
    _r(
        "OPEN_ENUM_VALUE_REMOVED",
        E,
        {K},
        Bump.MAJOR,
        "A value was removed from an open enum.",
        "Documents stay valid through the pattern, but the binding member (a constant code imports) disappears and "
        "the value silently loses its registered meaning. Registered kinds are deprecated, never removed.",
        "`failure_kinds.schema.json` loses `judge_failed`.",
    ),
    _r(
        "LOWER_BOUND_RAISED",
        E,
        {B},
        Bump.MAJOR,
        "`minimum`, `exclusiveMinimum`, `minLength`, `minItems` or `minProperties` was added or raised.",
        "Documents of old producers with values between the old and the new bound fail at new consumers.",
        "`reward` gains `minimum: 0`.",
    ),
    _r(
        "LOWER_BOUND_LOWERED",
        E,
        {F},
        Bump.MAJOR,
        "A lower bound was removed or lowered.",
        "New producers may write values below the old bound, which old consumers reject.",
        "`minLength: 3` lowered to 1.",
    ),
    _r(
        "UPPER_BOUND_LOWERED",
        E,
        {B},
        Bump.MAJOR,
        "`maximum`, `exclusiveMaximum`, `maxLength`, `maxItems` or `maxProperties` was added or lowered.",
        "Documents of old producers with values above the new bound fail at new consumers.",
        "`failure_reason` gains `maxLength: 200`.",
    ),
    _r(
        "UPPER_BOUND_RAISED",
        E,
        {F},
        Bump.MAJOR,
        "An upper bound was removed or raised.",
        "New producers may write values above the old bound, which old consumers reject.",
        "`maxLength: 200` raised to 1000.",
    ),
    _r(
        "PATTERN_ADDED",
        E,
        {B},
        Bump.MAJOR,
        "A string gained a `pattern`.",
        "Documents of old producers with non-matching strings fail at new consumers.",
        "`failure_reason` gains `pattern: ^[ -~]*$`.",
    ),
    _r(
        "PATTERN_REMOVED",
        E,
        {F},
        Bump.MAJOR,
        "A string lost its `pattern`.",
        "New producers may write strings old consumers reject.",
        "FailureKindName loses its pattern.",
    ),
    _r(
        "PATTERN_CHANGED",
        E,
        {B, F},
        Bump.MAJOR,
        "A `pattern` was changed and neither accepts all the other's strings, or inclusion cannot be decided.",
        "Inclusion is decided only for patterns whose ECMA-262 meaning is a regular language the differ can build "
        "(no lookarounds, backreferences, word boundaries, `\\s`, inner anchors, large repetitions after an "
        "unanchored start); otherwise, and when each pattern accepts strings the other rejects, the change breaks "
        "both ways.",
        "FailureKindName's pattern allows upper case but no longer digits.",
    ),
    _r(
        "PATTERN_NARROWED",
        E,
        {B},
        Bump.MAJOR,
        "A `pattern` was replaced by one that accepts a strict subset of its strings.",
        "Regular-language inclusion is decided (interegular automata): documents of old producers with strings only "
        "the old pattern accepts fail at new consumers; every string the new pattern accepts was already valid.",
        "FailureKindName from `^[a-z][a-z0-9_]*(:[a-z][a-z0-9_]*)?$` to `^[a-z][a-z0-9_]*$`.",
    ),
    _r(
        "PATTERN_WIDENED",
        E,
        {F},
        Bump.MAJOR,
        "A `pattern` was replaced by one that accepts a strict superset of its strings.",
        "New producers may write strings that old consumers reject; old documents all stay valid.",
        "FailureKindName's namespace part allows a leading digit.",
    ),
    _r(
        "PATTERN_EQUIVALENT",
        I,
        set(),
        Bump.PATCH,
        "A `pattern` was rewritten without changing the strings it accepts.",
        "Both patterns denote the same regular language (decided, not guessed): no document changes verdict. The "
        "generated code carries the new text.",
        "`^[a-z][a-z0-9_]*` rewritten as `^[a-z]([a-z0-9_]*)`.",
    ),
    _r(
        "DEFAULT_ADDED",
        W,
        {K},
        Bump.MINOR,
        "An existing optional property gained a `default`.",
        "Absence gets a documented meaning. Reviewers check that it matches what old producers meant by omitting it. "
        "The generated field now reads as the default instead of MISSING when absent (checked against the "
        "generator: tests/diff/test_diff_bindings_effect.py).",
        "`failure_reason` gains `default: null`.",
    ),
    _r(
        "DEFAULT_CHANGED",
        E,
        {B, F, K},
        Bump.MAJOR,
        "A `default` changed.",
        "Documents that omit the property change meaning: a new consumer reads an old document with the new default "
        "(and the other way round). For `mask_sample` this flips which rewards are trained on. The generated field's "
        "default changes with it.",
        "`mask_sample` default from false to true.",
    ),
    _r(
        "DEFAULT_REMOVED",
        E,
        {B, F, K},
        Bump.MAJOR,
        "A `default` was removed.",
        "Consumers can no longer tell what absence means, and binding fields lose their default value.",
        "`mask_sample` loses `default: false`.",
    ),
    _r(
        "REF_RETARGETED",
        E,
        {B, F, K},
        Bump.MAJOR,
        "A circular `$ref` (which the differ keeps as a reference) changed, or a location switched between such "
        "a reference and a schema.",
        "Without unfolding the cycle the accepted values cannot be compared, so the change counts as breaking "
        "everywhere; other references are compared by meaning (REF_RENAMED for the name), and one that cannot be "
        "resolved at all is refused with one error naming it (exit 2).",
        "`Chain.next` from `#/$defs/Chain` to `#/$defs/Other`, both recursive.",
    ),
    _r(
        "REF_RENAMED",
        E,
        {K},
        Bump.MAJOR,
        "A location refers to a differently named definition (or a reference was inlined, or an inline schema "
        "became a reference); what it accepts is compared after resolving both.",
        "Generated code names the referenced class: a renamed `$defs` key renames it even when every document keeps "
        "its verdict. Wire changes between the two targets are reported by their own rules.",
        "`$defs/InstanceConfig` renamed to `$defs/AgentConfig`, every `$ref` updated.",
    ),
    _r(
        "ANYOF_BRANCH_ADDED",
        E,
        {F, K},
        Bump.MAJOR,
        "An `anyOf` gained a branch (other than a plain type, which the type rules report).",
        "New producers may write values only the new branch accepts; old consumers reject them.",
        "`failure_kind` gains a branch `{type: integer}`.",
    ),
    _r(
        "ANYOF_BRANCH_REMOVED",
        E,
        {B, K},
        Bump.MAJOR,
        "An `anyOf` lost a branch.",
        "Documents of old producers that matched only that branch fail at new consumers.",
        "`failure_kind` loses its FailureKindName branch (the enum becomes closed).",
    ),
    _r(
        "ALLOF_MEMBER_ADDED",
        E,
        {B},
        Bump.MAJOR,
        "An `allOf` that cannot be merged exactly (a closed object beside other properties, conflicting keywords) "
        "gained a member: every document must satisfy one more schema.",
        "Documents of old producers that break the new member fail at new consumers.",
        "GymVerifyResponse gains the member `{additionalProperties: false}`.",
    ),
    _r(
        "ALLOF_MEMBER_REMOVED",
        E,
        {F, K},
        Bump.MAJOR,
        "An `allOf` that cannot be merged exactly lost a member.",
        "New producers may write documents that old consumers, still applying the member, reject; a binding class "
        "may lose its base class.",
        "GymVerifyResponse loses its member `{additionalProperties: false}`.",
    ),
    _r(
        "ALLOF_REFERENCE_ADDED",
        W,
        {K},
        Bump.MINOR,
        "An `allOf` gained a `$ref` member whose constraints were merged into the profile.",
        "The accepted documents are compared on the merged constraints (reported by their own rules); the generated "
        "class gains a base class.",
        "GymVerifyResponse gains `allOf: [{$ref: '#/$defs/ResponsesCreateParams'}]`.",
    ),
    _r(
        "ALLOF_REFERENCE_REMOVED",
        E,
        {K},
        Bump.MAJOR,
        "An `allOf` lost a `$ref` member whose constraints were merged into the profile.",
        "The generated class loses a base class (isinstance checks and inherited fields); the merged constraints "
        "that went away are reported by their own rules.",
        "GymVerifyResponse no longer extends VerifyResponse.",
    ),
    _r(
        "COMPOSITION_CHANGED",
        E,
        {B, F, K},
        Bump.MAJOR,
        "A schema switched between `type` and `anyOf` forms (or added/removed `anyOf`) beyond a type change.",
        "The differ compares the accepted types but cannot prove the rest equivalent; review by hand.",
        "`failure_reason` from `type: [string, null]` to `anyOf: [{type: string, maxLength: 9}, {type: null}]`.",
    ),
    # --- definitions, names and annotations -----------------------------------------------------
    _r(
        "DEFINITION_ADDED",
        I,
        set(),
        Bump.MINOR,
        "A `$defs` entry was added.",
        "A new binding type; nothing existing changes.",
        "1.1.0 -> 1.2.0 adds InstanceConfig.",
    ),
    _r(
        "DEFINITION_REMOVED",
        E,
        {K},
        Bump.MAJOR,
        "A `$defs` entry was removed.",
        "Its binding class disappears and schemas or validators that reference `#/$defs/<name>` (the profiles are "
        "such entry points) break.",
        "`$defs/Response` removed.",
    ),
    _r(
        "TITLE_CHANGED",
        E,
        {K},
        Bump.MAJOR,
        "A `title` changed.",
        "Titles name the generated classes and type aliases (`--use-title-as-name`): code importing the old name "
        "breaks even though every JSON document is unchanged.",
        "`$defs/InstanceConfig` titled `AgentConfig`.",
    ),
    _r(
        "TITLE_REMOVED",
        E,
        {K},
        Bump.MAJOR,
        "A `title` was removed.",
        "The generated name falls back to one derived from the location, so importers of the old name break.",
        "`reward` loses `title: Reward`.",
    ),
    _r(
        "TITLE_ADDED",
        W,
        {K},
        Bump.MINOR,
        "A `title` was added.",
        "A new generated name; it can replace a name the generator used to derive, so check the bindings diff.",
        "`response.output` items get `title: OutputItem`.",
    ),
    _r(
        "DESCRIPTION_CHANGED",
        I,
        set(),
        Bump.PATCH,
        "`description`, `$comment` or `examples` changed.",
        "Documentation only: no document and no binding name changes.",
        "A clearer description of `reward`.",
    ),
    _r(
        "EXTENSION_CHANGED",
        I,
        set(),
        Bump.PATCH,
        "An `x-` extension keyword was added, removed or changed.",
        "Extension keywords are annotations: no validator applies them and the contract's generators do not read "
        "them (checked: tests/diff/test_diff_bindings_effect.py).",
        "`reward` gains `x-unit: points`.",
    ),
    _r(
        "DEPRECATED_ADDED",
        I,
        set(),
        Bump.MINOR,
        "A schema was marked `deprecated: true`.",
        "Announces a future removal (semver: deprecations are minor). Producers should stop writing it; binding "
        "access warns.",
        "1.2.0 marks `instance_config.mask_sample` deprecated.",
    ),
    _r(
        "DEPRECATED_REMOVED",
        I,
        set(),
        Bump.MINOR,
        "A `deprecated: true` marker was removed.",
        "The schema is supported again; nothing breaks.",
        "`instance_config.mask_sample` un-deprecated.",
    ),
    _r(
        "DIALECT_CHANGED",
        E,
        {B, F, K},
        Bump.MAJOR,
        "`$schema` (the JSON Schema dialect) changed.",
        "Keywords can change meaning between dialects; every validator and generator is affected.",
        "`$schema` from 2020-12 to draft-07.",
    ),
    _r(
        "SCHEMA_ID_CHANGED",
        E,
        {K},
        Bump.MAJOR,
        "`$id` changed beyond its version segment.",
        "Tools that resolve the schema or its `$ref`s by URI lose it.",
        "`$id` moves to another host.",
    ),
    _r(
        "UNCLASSIFIED_CHANGE",
        E,
        {B, F, K},
        Bump.MAJOR,
        "A keyword the differ has no rule for changed.",
        "Nothing is waved through unexamined: an unknown change counts as breaking until a reviewer (or a new "
        "rule) says otherwise.",
        "`multipleOf: 0.5` added to `reward`.",
    ),
    # --- the failure-kind registry (after OpenTelemetry's compatibility policies) ----------------
    _r(
        "REGISTRY_KIND_ADDED",
        I,
        set(),
        Bump.MINOR,
        "A failure kind was registered.",
        "New shared vocabulary; every consumer already accepts well-formed unregistered names.",
        "`sandbox_crashed` added with `added_in: 1.3.0`.",
    ),
    _r(
        "REGISTRY_KIND_BACKDATED",
        E,
        {K},
        Bump.MAJOR,
        "A newly registered failure kind claims an `added_in` that is not after the old version.",
        "A kind added now belongs to the new version: back-dating it claims that an already released version (whose "
        "files and generated enum are locked) knew it.",
        "`sandbox_crashed` added with `added_in: 1.2.0` in the 1.2.0 -> 1.3.0 diff.",
        forbidden=True,
    ),
    _r(
        "REGISTRY_KIND_REMOVED",
        E,
        {B, K},
        Bump.MAJOR,
        "A failure kind was removed from the registry.",
        "Kinds are never removed: documents that name it lose its meaning and code using its constant breaks. "
        "Deprecate it instead (`deprecated: {in, reason: obsoleted}`).",
        "`kill_shaped` deleted from failure_kinds.yaml.",
        forbidden=True,
    ),
    _r(
        "REGISTRY_KIND_RENAMED_IN_PLACE",
        E,
        {B, K},
        Bump.MAJOR,
        "A failure kind's id was edited (one id removed, one with the same brief added).",
        "Renaming is a deprecation: keep the old id, add the new one, and set `deprecated: {reason: renamed, "
        "renamed_to: <new id>}` so consumers can map old documents.",
        "`judge_failed` edited to `judge_call_failed`.",
        forbidden=True,
    ),
    _r(
        "REGISTRY_KIND_RENAMED",
        I,
        set(),
        Bump.MINOR,
        "A failure kind was deprecated as renamed, with `renamed_to` naming a registered kind.",
        "The compatible way to rename: old documents stay meaningful and consumers can map the old id.",
        "`judge_failed` deprecated with `renamed_to: judge_call_failed`.",
    ),
    _r(
        "REGISTRY_RENAME_TARGET_INVALID",
        E,
        {B},
        Bump.MAJOR,
        "A kind deprecated as renamed has no `renamed_to`, or it names a missing or deprecated kind.",
        "Consumers cannot map documents that use the old id to its successor.",
        "`deprecated: {reason: renamed}` without `renamed_to`.",
        forbidden=True,
    ),
    _r(
        "REGISTRY_KIND_DEPRECATED",
        I,
        set(),
        Bump.MINOR,
        "A failure kind was deprecated as obsoleted.",
        "Producers should stop sending it; it stays registered forever.",
        "`kill_shaped` deprecated with reason obsoleted.",
    ),
    _r(
        "REGISTRY_KIND_UNDEPRECATED",
        W,
        set(),
        Bump.MINOR,
        "A failure kind's deprecation was withdrawn.",
        "Allowed, but consumers may already have migrated away from it; say why in the changelog.",
        "`kill_shaped` loses its `deprecated` block.",
    ),
    _r(
        "REGISTRY_DEPRECATION_CHANGED",
        W,
        set(),
        Bump.PATCH,
        "A deprecation's version, reason or note changed.",
        "The history of a kind should not be rewritten; a changed `renamed_to` is reported here too.",
        "`deprecated.in` moved from 1.3.0 to 1.4.0.",
    ),
    _r(
        "REGISTRY_STABILITY_LOWERED",
        E,
        {B},
        Bump.MAJOR,
        "A stable failure kind went back to development.",
        "Stable kinds are a promise consumers build alerting and metrics on; stability never goes down.",
        "`transport_timeout` from stable to development.",
        forbidden=True,
    ),
    _r(
        "REGISTRY_STABILITY_RAISED",
        I,
        set(),
        Bump.MINOR,
        "A failure kind became stable.",
        "A new promise; nothing breaks.",
        "`protocol_violation` from development to stable.",
    ),
    _r(
        "REGISTRY_KIND_MEANING_CHANGED",
        E,
        {B, F},
        Bump.MAJOR,
        "A failure kind's `domain` or `added_in` changed.",
        "An id never changes meaning: documents written under the old meaning would be read under the new one.",
        "`session_lost` moved from domain session to domain transport.",
        forbidden=True,
    ),
    _r(
        "REGISTRY_KIND_BRIEF_CHANGED",
        W,
        set(),
        Bump.PATCH,
        "A failure kind's `brief` changed.",
        "Allowed as a clarification; a reviewer confirms it does not change what the kind means (if it does, "
        "register a new kind and deprecate this one).",
        "`cancelled`'s brief reworded.",
    ),
    _r(
        "REGISTRY_INVALID",
        E,
        set(),
        Bump.MAJOR,
        "The new registry breaks one of the registry file's own rules.",
        "Generators refuse it; the message names the rule (id grammar, duplicate id, unknown key, unknown version).",
        "A kind id `Judge-Failed`.",
        forbidden=True,
    ),
    # --- the version -----------------------------------------------------------------------------
    _r(
        "VERSION_BUMP_INSUFFICIENT",
        E,
        set(),
        Bump.NONE,
        "The new contract version is a smaller step than its changes require.",
        "Semantic versions are how consumers decide whether they can upgrade blindly: a breaking change needs a "
        "major version, an addition a minor one (oasdiff's breaking-change-without-major-bump check).",
        "1.2.0 -> 1.3.0 with TYPE_NARROWED.",
    ),
)

RULES: dict[str, Rule] = {rule.id: rule for rule in _RULES}


def verdict(rule: Rule) -> dict[str, Any]:
    """A rule's verdict on a change, in the JSON report's order: ``direction`` (``direction_label``),
    ``breaks`` (the ``Break`` values, sorted), ``bump`` (a ``Bump`` value) and ``forbidden``."""
    return {
        "direction": rule.direction,
        "breaks": sorted(b.value for b in rule.breaks),
        "bump": rule.bump.value,
        "forbidden": rule.forbidden,
    }


def change(rule_id: str, file: str, pointer: str, message: str) -> Finding:
    """A change the differ found, as a ``Finding`` of its rule's severity. The finding's ``context`` is a
    copy of the rule's verdict for its readers; the differ's report reads the rule itself."""
    rule = RULES[rule_id]
    return Finding(rule_id, rule.severity, message, pointer, file, verdict(rule))
