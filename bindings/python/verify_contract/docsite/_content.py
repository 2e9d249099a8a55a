"""What the documentation site says, gathered from the sources the tools themselves use: the resolved model
of each version (fields, profiles, kinds, rules), the vectors (examples), the real ``check`` (each rule's
message), the real differ (each version-to-version change), the conformance kit's obligations, the budget's
rule ids and the command line's own ``--help``. Nothing here restates a fact of the contract."""

from __future__ import annotations

import io
import itertools
import json
import re
from contextlib import redirect_stdout, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verify_contract.contract import ABSENT, MASK_ROLES, Field, ResolvedModel, contract_model, value_at, version_key
from verify_contract.generated import CONTRACT_VERSIONS, LATEST_VERSION
from verify_contract.vectors import Vector, load_vectors

HELP_COLUMNS = 100
"""The width the command line's help is rendered at on the CLI page (argparse wraps to the terminal)."""


def field_anchor(member: Field) -> str:
    """A field's anchor on its version's page: its dotted path (``instance_config.mask_sample``)."""
    return ".".join(member.path)


def version_page(version: str) -> str:
    return f"versions/{version}/index.html"


@dataclass(frozen=True)
class Example:
    vector: str
    file: str
    version: str
    text: str
    findings: tuple[str, ...]


@dataclass(frozen=True)
class FieldEntry:
    anchor: str
    member: Field
    required: bool
    examples: dict[str, Example | None]
    replaced_by: FieldEntry | None
    rules: tuple[str, ...]


@dataclass(frozen=True)
class VersionEntry:
    version: str
    model: ResolvedModel
    fields: tuple[FieldEntry, ...]


@dataclass(frozen=True)
class RuleEntry:
    id: str
    severity: str
    summary: str
    group: str
    trigger: str
    fields: tuple[tuple[str, str], ...]
    """(dotted path, anchor URL) of each field whose violations map to the rule, in the latest version."""
    since: str
    spec_section: str | None
    vector: Example | None
    check_line: str | None


@dataclass(frozen=True)
class KindEntry:
    id: str
    info: dict[str, Any]
    since: str
    versions: tuple[str, ...]
    vectors: tuple[str, ...]


@dataclass
class SiteContent:
    versions: list[VersionEntry]
    kinds: list[KindEntry]
    kind_grammar: str
    rules: list[RuleEntry]
    budget_rules: dict[str, str]
    obligations: list[Any]
    changes: list[dict[str, Any]]
    help_texts: dict[str, str]
    targets: dict[str, bool]
    spec_sections: dict[str, str] = field(default_factory=dict)
    """SPEC section number -> its anchor on the SPEC page."""


def models() -> list[ResolvedModel]:
    return [contract_model(v) for v in sorted(CONTRACT_VERSIONS, key=version_key)]


def _one_line(vector: Vector) -> bool:
    return "\n" not in vector.text and "\r" not in vector.text


def _example(vector: Vector) -> Example:
    return Example(vector.id, vector.file, vector.contract_version, vector.text, vector.findings)


def _field_rules(member: Field) -> tuple[str, ...]:
    found = [member.missing_rule] if member.missing_rule else []
    found += [choice.rule for choice in (*member.type_rules, *member.invalid_rules)]
    return tuple(dict.fromkeys(found))


def _examples(model: ResolvedModel, member: Field, vectors: list[Vector]) -> dict[str, Example | None]:
    """A valid and an invalid vector of this version (of the newest version that has the field, when this one
    has none) that show the field: present in a valid document, and broken by one of its rules."""
    rules = set(_field_rules(member))
    ordered = sorted(vectors, key=lambda v: (v.contract_version != model.version, v.contract_version != LATEST_VERSION))
    valid = next(
        (
            v
            for v in ordered
            if v.valid
            and v.has_instance
            and v.profile in member.profiles
            and value_at(v.instance, member.path) is not ABSENT
        ),
        None,
    )
    invalid = next((v for v in ordered if rules & set(v.findings) and v.profile in member.profiles), None)
    return {"valid": _example(valid) if valid else None, "invalid": _example(invalid) if invalid else None}


def _replacement(model: ResolvedModel, member: Field) -> Field | None:
    """The field that replaces a deprecated one: a later mask role's field gives way to the first (SPEC 4.2:
    the effective mask is read at every location; the first is where producers write it)."""
    if not member.deprecated:
        return None
    role = next((r for r, pointer in model.roles.items() if pointer == member.pointer), None)
    if role in MASK_ROLES[1:]:
        return model.role(MASK_ROLES[0])
    return None


def version_entry(model: ResolvedModel, vectors: list[Vector]) -> VersionEntry:
    entries: dict[str, FieldEntry] = {}
    for member in model.fields:
        entries[member.pointer] = FieldEntry(
            anchor=field_anchor(member),
            member=member,
            required=bool(member.required_in),
            examples=_examples(model, member, vectors),
            replaced_by=None,
            rules=_field_rules(member),
        )
    for pointer, entry in list(entries.items()):
        replacement = _replacement(model, entry.member)
        if replacement is not None:
            entries[pointer] = FieldEntry(
                entry.anchor, entry.member, entry.required, entry.examples, entries[replacement.pointer], entry.rules
            )
    return VersionEntry(model.version, model, tuple(entries.values()))


@dataclass(frozen=True)
class SpecSection:
    number: str
    title: str
    body: str


SPEC_HEADING = re.compile(r"^(#{2,4}) (?P<number>\d+(?:\.\d+)*)\.? (?P<title>.+)$")


def spec_sections(spec: str) -> list[SpecSection]:
    """SPEC.md's numbered sections, each with its own text (up to the next heading)."""
    sections: list[SpecSection] = []
    number = title = None
    body: list[str] = []
    for line in spec.splitlines():
        heading = SPEC_HEADING.match(line)
        if heading or line.startswith("#"):
            if number is not None and title is not None:
                sections.append(SpecSection(number, title, "\n".join(body)))
            number, title = (heading["number"], heading["title"]) if heading else (None, None)
            body = []
        else:
            body.append(line)
    if number is not None and title is not None:
        sections.append(SpecSection(number, title, "\n".join(body)))
    return sections


GENERATED_BLOCK = re.compile(r"<!-- BEGIN GENERATED.*?<!-- END GENERATED[^>]*-->", re.S)


def rule_section(rule_id: str, sections: list[SpecSection], catalogue: str) -> str | None:
    """The SPEC section whose own text first names the rule (outside the generated tables), else the one that
    holds the catalogue (``catalogue``: the generated block's name)."""
    for section in sections:
        if f"`{rule_id}`" in GENERATED_BLOCK.sub("", section.body):
            return section.number
    return next((s.number for s in sections if f"BEGIN GENERATED: {catalogue}" in s.body), None)


def check_line(vector: Vector, rule_id: str) -> str | None:
    """The line ``verify-contract check`` prints for the vector's finding of ``rule_id``: the real check, run on
    the vector's text as a one-line JSONL input named after the vector."""
    from verify_contract.check import CheckOptions, check_bytes
    from verify_contract.cli import format_text

    options = CheckOptions(vector.contract_version, vector.profile)
    report = check_bytes(vector.text.encode("utf-8") + b"\n", options, name=f"{vector.id}.jsonl")
    printed = format_text(report, options).splitlines()[: len(report.findings)]
    return next((line for line in printed if f"[{rule_id}]" in line), None)


def _trigger(rule: dict[str, Any]) -> str:
    if "scope" in rule:
        scopes = {"text": "the JSON text itself", "fallback": "any other schema violation"}
        return scopes.get(rule["scope"], str(rule["scope"]))
    if "role" in rule:
        return f"the value of the `{rule['role']}` field (a semantic rule, beyond the schema)"
    where = []
    for place in rule.get("where", ()):
        text = f"`{place['pointer'] or '/'}`"
        if "keyword" in place:
            text += f" {place['keyword']}"
        if "member" in place:
            text += f" `{place['member']}`"
        if "instance" in place:
            text += f" (a {'/'.join(place['instance'])} value)"
        where.append(text)
    return "schema keyword at " + ", ".join(where) if where else "the schema"


def rule_entries(
    model_list: list[ResolvedModel], vectors: list[Vector], sections: list[SpecSection]
) -> list[RuleEntry]:
    latest = model_list[-1]
    entries = []
    one_line = [v for v in vectors if _one_line(v)]
    # The newest version's shortest vector: the plainest example of the rule.
    ordered = sorted(one_line, key=lambda v: (tuple(-n for n in version_key(v.contract_version)), len(v.text)))
    for rule in latest.rules:
        vector = next((v for v in ordered if rule["id"] in v.findings), None)
        fields = tuple(
            (field_anchor(m), f"{version_page(latest.version)}#{field_anchor(m)}")
            for m in latest.fields
            if rule["id"] in _field_rules(m)
        )
        since = next(m.version for m in model_list if any(r["id"] == rule["id"] for r in m.rules))
        group = "text" if rule.get("scope") == "text" else "semantic" if "role" in rule else "schema"
        entries.append(
            RuleEntry(
                id=rule["id"],
                severity=rule["severity"],
                summary=rule["summary"],
                group=group,
                trigger=_trigger(rule),
                fields=fields,
                since=since,
                spec_section=rule_section(rule["id"], sections, "rules"),
                vector=_example(vector) if vector else None,
                check_line=check_line(vector, rule["id"]) if vector else None,
            )
        )
    return entries


# The tools that report a registered failure kind by its id, what they say of it, and their page on the site.
KIND_REPORTERS = (
    (
        "check's failure budget",
        "the kinds of each window, run and group, and the --metrics-file label",
        "budget/index.html",
    ),
    ("probe", "the kinds of the replies it received", "cli/index.html#probe"),
    ("check", "counts registered kinds, and warns on a deprecated one", "cli/index.html#check"),
)


def kind_entries(model_list: list[ResolvedModel], vectors: list[Vector], stream_texts: list[str]) -> list[KindEntry]:
    latest = model_list[-1]
    if latest.failure_kinds is None:
        return []
    entries = []
    for info in latest.failure_kinds["registered"]:
        versions = tuple(m.version for m in model_list if info["id"] in m.registered_kinds())
        uses = tuple(
            v.id for v in vectors if v.has_instance and info["id"] in json.dumps(v.instance) and v.valid is not None
        )
        in_streams = any(f'"{info["id"]}"' in text for text in stream_texts)
        entries.append(
            KindEntry(
                info["id"],
                info,
                info["added_in"],
                versions,
                uses + (("stream vectors (vectors/streams)",) if in_streams else ()),
            )
        )
    return entries


def change_reports(repo: Path) -> list[dict[str, Any]]:
    """Each consecutive pair of versions, as ``verify-contract diff`` reports it (its JSON report)."""
    from verify_contract.diff import diff_specs

    versions = sorted(CONTRACT_VERSIONS, key=version_key)
    reports = []
    for old, new in itertools.pairwise(versions):
        report = diff_specs(str(repo / "schema" / "versions" / old), str(repo / "schema" / "versions" / new))
        data = report.as_dict()
        reports.append(data)
    return reports


def help_texts() -> dict[str, str]:
    """``verify-contract --help`` and each command's, as the command line prints them."""
    import os

    from verify_contract.cli import COMMAND_MODULES, build_parser

    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(HELP_COLUMNS)
    try:
        texts = {"": build_parser(["--help"]).format_help()}
        for command in COMMAND_MODULES:
            out = io.StringIO()
            with redirect_stdout(out), suppress(SystemExit):
                build_parser([command]).parse_args([command, "--help"])
            texts[command] = out.getvalue()
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved
    return texts


def gather(repo: Path, spec: str) -> SiteContent:
    from verify_contract.budget import BUDGET_RULES
    from verify_contract.codegen.targets import TARGETS
    from verify_contract.conformance.obligations import OBLIGATIONS

    vectors = load_vectors()
    model_list = models()
    sections = spec_sections(spec)
    streams = [p.read_text(encoding="utf-8") for p in sorted((repo / "vectors" / "streams").glob("*.json"))]
    latest = model_list[-1]
    return SiteContent(
        versions=[version_entry(m, vectors) for m in model_list],
        kinds=kind_entries(model_list, vectors, streams),
        kind_grammar=latest.failure_kinds["grammar"] if latest.failure_kinds else "",
        rules=rule_entries(model_list, vectors, sections),
        budget_rules=dict(BUDGET_RULES),
        obligations=list(OBLIGATIONS.values()),
        changes=change_reports(repo),
        help_texts=help_texts(),
        targets=dict(TARGETS),
    )
