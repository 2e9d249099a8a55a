"""No hand-written runtime code names the contract: its field names, profile names and version strings
come from the resolved model (generated files, or the model read at run time), never from a string typed
by hand (issue 8). The names are read from the newest resolved model, not from a list in this test, so a
field added to the schema is guarded the moment it is generated. Every hand-written module is read (the
bindings' runtimes, the whole Python package outside ``generated/``, the generators); ``ALLOWED`` names the
few literals that only look like contract names, each with its reason.

What counts as naming the contract is a string literal, outside comments and test code, that
- holds a field name with an underscore (``mask_sample``) anywhere as a word: such a name means nothing
  else;
- is a location made only of names (``reward``, ``/instance_config/mask_sample``, ``instance_config.x``)
  with a field name, a profile name or a profile's ``$defs`` root among its segments, or a Go struct tag
  naming a field (``json:"reward"``): plain words (``response``, ``output``) are also English, so prose
  mentioning them is not a location;
- holds a contract version (``1.2.0``);
- holds a rule id of the model's catalogue or of the failure budget (``reward-non-finite``,
  ``budget-missing``) or a rollout key NeMo Gym writes (``_ng_task_index``) as a word: they are public
  API, stated in ``schema/contract.yaml``;
- in Python outside the model (``verify_contract/contract/``), is exactly a role name (``"failure_kind"``,
  ``"mask"``).
Python code names roles and rules through the generated constants of ``generated/contract_names.py``
(``model.role(ROLE_FAILURE_KIND)``, ``RULE_BUDGET_MISSING``), so a renamed role or rule fails at import.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from verify_contract.budget import BUDGET_RULES
from verify_contract.contract._model import contract_model
from verify_contract.contract._versions import CONTRACT_VERSIONS

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "bindings" / "python" / "verify_contract"
MODEL_PACKAGE = PACKAGE / "contract"
GENERATORS = ROOT / "generators"
# Literals that look like contract names but are not; each entry says why. Keep it short: a new entry
# needs a reason that the text is not the contract's shape (prose about it, or another vocabulary).
ALLOWED: dict[tuple[str, str | None], str] = {
    # ASGI message types ("http.response.start"): the ASGI spec's vocabulary, not the contract's `response`.
    ("bindings/python/verify_contract/asgi.py", "http.response.start"): "ASGI message type",
    ("bindings/python/verify_contract/asgi.py", "http.response.body"): "ASGI message type",
    ("bindings/python/verify_contract/probe/_in_process.py", "http.response.start"): "ASGI message type",
    ("bindings/python/verify_contract/probe/_in_process.py", "http.response.body"): "ASGI message type",
    # Values of the conformance kit's public `reads=` argument (what a consumer function returns), not roles.
    ("bindings/python/verify_contract/conformance/consumer.py", "mask"): "reads= value",
    ("bindings/python/verify_contract/conformance/consumer.py", "reward"): "reads= value",
    ("bindings/python/verify_contract/conformance/pytest_plugin.py", "mask"): "reads= default",
    ("bindings/python/verify_contract/cli/_conformance.py", "mask"): "--reads default",
    # Names in check's own stable outputs: a key of its JSON report, a label of its Prometheus metrics.
    ("bindings/python/verify_contract/check/_report.py", "legacy_mask"): "JSON report key",
    ("bindings/python/verify_contract/check/_budget_metrics.py", "failure_kind"): "metrics label",
    # The diff rules' examples: hypothetical schema changes in prose (docs/diff-rules.md renders them).
    ("bindings/python/verify_contract/diff/rules.py", None): "prose examples of changes",
}
# The strict JSON parsers of the other bindings name the text rules they raise (their runtimes do not read
# the model); test_each_parser_raises_exactly_the_catalogues_text_rules holds them to the catalogue, and
# validate.ts raises the same rules on an already-parsed value. Only the text rules are allowed there.
TEXT_PARSERS = ("bindings/typescript/src/json.ts", "bindings/go/jsonwire/parse.go", "bindings/rust/src/json.rs")
TEXT_RULE_NAMERS = (*TEXT_PARSERS, "bindings/typescript/src/validate.ts")
GO_VERSION_PACKAGE = re.compile(r"v\d+_\d+_\d+")


@dataclass(frozen=True)
class Literal:
    line: int
    text: str


@dataclass(frozen=True)
class Names:
    fields: frozenset[str]
    profiles: frozenset[str]
    definitions: frozenset[str]
    versions: tuple[str, ...]
    roles: frozenset[str]
    rules: frozenset[str]
    text_rules: frozenset[str]
    rollout_keys: frozenset[str]


def contract_names() -> Names:
    model = contract_model(CONTRACT_VERSIONS[-1]).raw
    return Names(
        fields=frozenset(field["name"] for field in model["fields"]),
        profiles=frozenset(model["profiles"]),
        definitions=frozenset(profile["definition"] for profile in model["profiles"].values()),
        versions=tuple(CONTRACT_VERSIONS),
        roles=frozenset(model["roles"]),
        rules=frozenset(rule["id"] for rule in [*model["rules"], *model["budget_rules"]]),
        text_rules=frozenset(rule["id"] for rule in model["rules"] if rule.get("scope") == "text"),
        rollout_keys=frozenset([*model["rollout_keys"]["identity"], model["rollout_keys"]["failure_class"]]),
    )


# --- string literals outside comments, per language -------------------------------------------------


def _skip_quoted(text: str, start: int, quote: str) -> int:
    """The index after the closing ``quote`` of the literal opened at ``start``; escapes honoured."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\" and quote != "`":
            i += 2
            continue
        if text[i] == quote:
            return i + 1
        i += 1
    return len(text)


_RUST_RAW = re.compile(r'(?<![A-Za-z0-9_])b?r(#*)"')
_RUST_CHAR = re.compile(r"'(?:\\u\{[0-9a-fA-F]+\}|\\.|[^\\'\n])'")


def c_like_literals(text: str, language: str) -> list[tuple[int, int, str]]:
    """(start, end, content) of every string literal of a TypeScript, Go, Rust or C source, comments
    skipped. A Rust ``'a`` is a lifetime, not a literal; TypeScript and Go back-quoted text is a literal."""
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(text):
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
            continue
        raw = _RUST_RAW.match(text, i) if language == "rust" else None
        if raw is not None:
            closing = '"' + raw.group(1)
            end = text.find(closing, raw.end())
            end = len(text) if end < 0 else end + len(closing)
            found.append((i, end, text[raw.end() : end - len(closing)]))
            i = end
            continue
        char = text[i]
        if char == "'" and language == "rust":
            literal = _RUST_CHAR.match(text, i)
            i = literal.end() if literal else i + 1
            continue
        if char == '"' or char == "'" or (char == "`" and language in ("typescript", "go")):
            end = _skip_quoted(text, i, char)
            found.append((i, end, text[i + 1 : end - 1]))
            i = end
            continue
        i += 1
    return found


def _rust_test_spans(text: str, literals: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """The spans of items under ``#[cfg(test)]`` (braces counted outside literals and comments)."""
    code = list(text)
    for start, end, _ in literals:
        code[start:end] = " " * (end - start)
    masked = "".join(code)
    masked = re.sub(r"//[^\n]*", lambda m: " " * len(m.group()), masked)
    spans = []
    for attribute in re.finditer(r"#\[cfg\(test\)\]", masked):
        brace = masked.find("{", attribute.end())
        semicolon = masked.find(";", attribute.end())
        if brace < 0 or 0 <= semicolon < brace:
            continue
        depth, i = 0, brace
        while i < len(masked):
            depth += {"{": 1, "}": -1}.get(masked[i], 0)
            if depth == 0:
                break
            i += 1
        spans.append((attribute.start(), i + 1))
    return spans


def source_literals(path: Path) -> Iterator[Literal]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        yield from _python_literals(text)
        return
    language = {".ts": "typescript", ".go": "go", ".rs": "rust", ".c": "c", ".h": "c"}[path.suffix]
    literals = c_like_literals(text, language)
    tests = _rust_test_spans(text, literals) if language == "rust" else []
    for start, _end, content in literals:
        if not any(a <= start < b for a, b in tests):
            yield Literal(text.count("\n", 0, start) + 1, content)


def _python_literals(text: str) -> Iterator[Literal]:
    tree = ast.parse(text)
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield Literal(node.lineno, node.value)


# --- what counts as naming the contract ---------------------------------------------------------------

_LOCATION = re.compile(r"[/.]?[A-Za-z0-9_]+(?:[/.][A-Za-z0-9_]+)*")
_GO_TAG = re.compile(r'json:"([^",]*)')


def offences(literal: str, names: Names, *, roles: str = "") -> list[str]:
    """What ``literal`` names of the contract (empty when nothing). ``roles``: what a literal that is exactly
    a role name is: ``offends`` (Python outside the model), ``allowed`` (the model's own Python), or else
    (another language) judged like any other text."""
    if roles == "allowed" and literal in names.roles:
        return []
    found = [f"role {literal!r}"] if roles == "offends" and literal in names.roles else []
    for name in sorted(names.fields):
        if not name.isalnum() and re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", literal):
            found.append(f"field {name!r}")
    if _LOCATION.fullmatch(literal):
        segments = set(re.split(r"[/.]", literal))
        found += [f"field {n!r}" for n in sorted(names.fields & segments) if n.isalnum()]
        found += [f"profile {n!r}" for n in sorted(names.profiles & segments)]
        found += [f"profile root {n!r}" for n in sorted(names.definitions & segments)]
    for tag in _GO_TAG.findall(literal):
        if tag in names.fields and tag.isalnum():
            found.append(f"field {tag!r} (struct tag)")
    for version in names.versions:
        if re.search(rf"(?<![0-9.]){re.escape(version)}(?![0-9.])", literal):
            found.append(f"version {version!r}")
    for key in sorted(names.rollout_keys):
        if re.search(rf"(?<![A-Za-z0-9_]){re.escape(key)}(?![A-Za-z0-9_])", literal):
            found.append(f"rollout key {key!r}")
    for rule in sorted(names.rules):
        if re.search(rf"(?<![A-Za-z0-9_-]){re.escape(rule)}(?![A-Za-z0-9_-])", literal):
            found.append(f"rule {rule!r}")
    return found


def role_names_in(path: Path) -> str:
    """What a role name typed in ``path`` is (``offences``' ``roles``): the model's Python reads the roles
    by name; other Python names them through ``generated/contract_names.py``."""
    if path.suffix != ".py":
        return ""
    return "allowed" if path.is_relative_to(MODEL_PACKAGE) else "offends"


def runtime_sources() -> list[Path]:
    """Every hand-written source: the bindings' non-generated, non-test code, every module of the Python
    package outside ``generated/`` (the compiled pre-check included) and the generators."""
    typescript = [
        p for p in (ROOT / "bindings/typescript/src").rglob("*.ts") if "generated" not in p.relative_to(ROOT).parts
    ]
    go = [
        p
        for p in (ROOT / "bindings/go").rglob("*.go")
        if not p.name.endswith(("_gen.go", "_test.go"))
        and not any(GO_VERSION_PACKAGE.fullmatch(part) for part in p.relative_to(ROOT / "bindings/go").parts)
    ]
    rust = [p for p in (ROOT / "bindings/rust/src").rglob("*.rs") if "generated" not in p.relative_to(ROOT).parts]
    python = [p for p in PACKAGE.rglob("*.py") if "generated" not in p.relative_to(PACKAGE).parts]
    return sorted([*typescript, *go, *rust, *python, *GENERATORS.rglob("*.py"), *PACKAGE.rglob("*.c")])


def _allowed(path: Path, literal: str, names: Names) -> bool:
    name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    text_rule = name in TEXT_RULE_NAMERS and literal in names.text_rules
    return (name, literal) in ALLOWED or (name, None) in ALLOWED or text_rule


def hand_typed(paths: list[Path], names: Names) -> list[str]:
    return [
        f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{literal.line}: "
        f"{', '.join(found)} in {literal.text!r}"
        for path in paths
        for literal in source_literals(path)
        if (found := offences(literal.text, names, roles=role_names_in(path)))
        and not _allowed(path, literal.text, names)
    ]


def test_the_sources_are_found() -> None:
    sources = runtime_sources()
    python = {p for p in PACKAGE.rglob("*.py") if "generated" not in p.relative_to(PACKAGE).parts}
    assert python <= set(sources) and set(GENERATORS.rglob("*.py")) <= set(sources)
    for expected in (
        "mask.ts",
        "verifycontract.go",
        "mask.rs",
        "upgrade.py",
        "consumer.py",
        "_validation.py",
        "_fastscan.c",
    ):
        assert any(p.name == expected for p in sources), expected
    assert not any("generated" in p.parts or p.name.endswith(("_gen.go", "_test.go")) for p in sources)


def test_every_allowance_is_still_needed() -> None:
    """An allowlist entry whose file or literal is gone (or no longer offends) is removed, not kept."""
    names = contract_names()
    for (name, literal), reason in ALLOWED.items():
        assert reason
        path = ROOT / name
        offending = {
            found.text for found in source_literals(path) if offences(found.text, names, roles=role_names_in(path))
        }
        assert offending if literal is None else literal in offending, (name, literal)


def test_no_runtime_source_names_the_contract_by_hand() -> None:
    found = hand_typed(runtime_sources(), contract_names())
    assert not found, "contract names typed by hand (read them from the generated model instead):\n" + "\n".join(found)


# --- the guard can fail --------------------------------------------------------------------------------

_PLANTED = {
    "planted.ts": (
        '// "mask_sample" in a comment is fine\nconst where = `${"instance_config"}.x`;\nconst p: Profile = "gym";\n'
        'const r = "legacy-mask-only";\n',
        ["field 'instance_config'", "profile 'gym'", "rule 'legacy-mask-only'"],
    ),
    "planted.go": (
        '/* "reward" */\ntype T struct {\n\tR int `json:"reward,omitempty"`\n}\nvar v = "1.2.0"\n',
        ["field 'reward' (struct tag)", "version '1.2.0'"],
    ),
    "planted.rs": (
        "fn f<'a>(x: &'a str) -> char { let _ = \"/failure_reason\"; 'x' }\n"
        '#[cfg(test)]\nmod tests {\n    const T: &str = r#"{"mask_sample": true}"#;\n}\n',
        ["field 'failure_reason'"],
    ),
    "planted.c": (
        '/* "reward" */ static const char *k = "output", *r = "budget-masked-rate";\n',
        ["field 'output'", "rule 'budget-masked-rate'"],
    ),
    # Near misses stay quiet: a word that only starts like a rule id, a plural, English prose.
    "planted.py": (
        '"""Docstring naming mask_sample and reward-non-finite."""\nROLE = "failure_kind"\nMASK = model.role("mask")\n'
        'FIELD = f"{x}.mask_sample"\nRULE = "reward-non-finite"\nBUDGET = f"{n} rollouts (budget-missing)"\n'
        'KEY = "_ng_task_index"\nPLAIN = "the response was empty"\nNEAR = "json-syntaxes, masks, rewards"\n',
        [
            "role 'failure_kind'",
            "role 'mask'",
            "field 'mask_sample'",
            "rule 'reward-non-finite'",
            "rule 'budget-missing'",
            "rollout key '_ng_task_index'",
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(_PLANTED))
def test_the_guard_reports_a_planted_name(tmp_path: Path, name: str) -> None:
    source, expected = _PLANTED[name]
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    reported = hand_typed([path], contract_names())
    assert len(reported) == len(expected), reported
    assert all(any(item in line for line in reported) for item in expected), reported


# Lines of the package before issue 29 (verbatim), each of which named a role, a rule id or a rollout key by
# hand and passed the guard of the time (a Python literal equal to a role name was allowed; rule ids and
# rollout keys were not looked at). Each must now be reported.
_BEFORE = {
    'BUDGET_RULES = {"budget-masked-rate": "The masked rate of a window is above a bound."}\n': "rule",
    'IDENTITY_KEYS = ("_ng_task_index", "_ng_rollout_index")\n': "rollout key",
    'WARNING_OBLIGATIONS = {"legacy-mask-only": "producer-legacy-mirror"}\n': "rule",
    'SIDECAR_UNREADABLE = "budget-sidecar-unreadable"\n': "rule",
    'REWARD_PATH = _role("reward").path\n': "role",
    'top, legacy = MASK_ROLES.get("mask"), MASK_ROLES.get("legacy_mask")\n': "role",
    'found.append(finding("reward-non-finite", f"{where}: not finite", where))\n': "rule",
}


@pytest.mark.parametrize("line", sorted(_BEFORE))
def test_the_guard_fails_on_the_code_before_the_facts_were_data(tmp_path: Path, line: str) -> None:
    path = tmp_path / "before.py"
    path.write_text(line, encoding="utf-8")
    reported = hand_typed([path], contract_names())
    assert reported and all(f"{_BEFORE[line]} '" in item for item in reported), reported


def test_role_names_are_the_models_own() -> None:
    """The model's Python reads roles by name; every other Python module names them through constants."""
    names = contract_names()
    assert role_names_in(MODEL_PACKAGE / "_model.py") == "allowed" and role_names_in(PACKAGE / "budget.py") == "offends"
    assert offences("mask", names, roles="allowed") == [] and offences("mask", names, roles="offends")
    assert offences("mask", names) == []  # in another language "mask" is a plain word


def test_only_the_text_rules_are_allowed_in_the_parsers() -> None:
    names = contract_names()
    parser = ROOT / TEXT_PARSERS[1]
    assert all(_allowed(parser, rule, names) for rule in names.text_rules)
    for rule in ("budget-missing", "reward-non-finite", "legacy-mask-only"):
        assert not _allowed(parser, rule, names) and offences(rule, names) == [f"rule {rule!r}"]


def test_the_names_come_from_the_model() -> None:
    names = contract_names()
    model = contract_model(CONTRACT_VERSIONS[-1])
    assert names.fields == {field.name for field in model.fields} and names.fields
    assert names.profiles == set(model.profiles) and names.versions == tuple(CONTRACT_VERSIONS)
    assert names.roles == set(model.roles) and names.rules == {r["id"] for r in (*model.rules, *model.budget_rules)}
    assert set(BUDGET_RULES) <= names.rules and names.text_rules < names.rules
    assert names.rollout_keys == {*model.rollout_keys.identity, model.rollout_keys.failure_class}


# --- the JSON-text rules: named by each parser, checked against the catalogue ---------------------------


@pytest.mark.parametrize("parser", TEXT_PARSERS)
def test_each_parser_raises_exactly_the_catalogues_text_rules(parser: str) -> None:
    """Which malformed text breaks which rule is the parser's own knowledge, so each binding's strict
    parser names the text rules it raises; they must be exactly the catalogue's text-scope rules (a rule
    added to, renamed in or removed from ``contract.yaml`` fails here until every parser follows)."""
    model = contract_model(CONTRACT_VERSIONS[-1]).raw
    text_rules = {rule["id"] for rule in model["rules"] if rule.get("scope") == "text"}
    prefixes = {rule.split("-", 1)[0] + "-" for rule in text_rules}
    named = {
        literal.text
        for literal in source_literals(ROOT / parser)
        if literal.text.startswith(tuple(prefixes)) and re.fullmatch(r"[a-z]+(?:-[a-z]+)+", literal.text)
    }
    assert text_rules and named == text_rules
