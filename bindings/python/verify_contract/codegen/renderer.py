"""Render templates over the resolved model: the one generator behind ``verify-contract generate`` and
the repository's ``python -m generators``.

A target is a folder of Jinja2 templates (``templates/<target>/``, shipped in the package; or the
downstream's own folder with ``--templates``). Every ``*.j2`` file not starting with ``_`` renders to one
output file named after the template without ``.j2``; ``{name}`` and ``{package}`` in a template's name
take the parameters. Files starting with ``_`` are macros to import. Each output starts with the header
(verify_contract.codegen.header), so no template can forget it: commented as the output's language
comments, or as the template declares (``{# verify-contract header: // #}``, ``/* */``, or ``none`` when
the template writes ``header_lines`` itself, which is then required near the top).
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from verify_contract.codegen import _binding as binding
from verify_contract.codegen import view as views
from verify_contract.codegen.bundle import FAILURE_KINDS_FILE, bundle, profile_bundle, uses_registry
from verify_contract.codegen.header import GeneratedHeader, header_lines, read_header
from verify_contract.codegen.targets import CONSTANTS_LANGUAGES, DEFAULT_PARAMS, TARGETS
from verify_contract.contract import ResolvedModel, contract_model, mask_locations, model_from_data

TEMPLATES = Path(str(resources.files("verify_contract.codegen") / "templates"))
# The profile value of a request for every profile of the version at once (the ``binding`` context).
ALL_PROFILES = "all"
# The header's comment style by output suffix: a line prefix, or a block's (opening, closing) marks. A
# template can name its own (``{# verify-contract header: ... #}``); any other suffix gets ``#``.
HeaderStyle = str | tuple[str, str] | None
_SLASHES = (".ts", ".go", ".rs", ".java", ".kt", ".kts", ".scala", ".swift", ".js", ".mjs", ".c", ".h", ".cc", ".cpp")
_COMMENT_STYLE: dict[str, HeaderStyle] = {
    **dict.fromkeys((".py", ".pyi", ".yaml", ".yml", ".toml", ".sh", ".r"), "#"),
    **dict.fromkeys((*_SLASHES, ".cs", ".hpp", ".dart", ".proto", ".php"), "//"),
    **dict.fromkeys((".sql", ".lua", ".hs"), "--"),
    **dict.fromkeys((".md", ".html", ".xml", ".svg"), ("<!--", "-->")),
    ".css": ("/*", "*/"),
}
# ``{# verify-contract header: STYLE #}`` opening a template: STYLE is a line prefix (``//``), a block's
# two marks (``/* */``), or ``none`` (the template writes ``header_lines`` itself, near its top).
_HEADER_DIRECTIVE = re.compile(r"\A\{#-?\s*verify-contract header:\s*(?P<style>.*?)\s*-?#\}")
# A package as the target language spells it: an identifier, or identifiers joined by "." (Java, Kotlin,
# C#, Python), "::" (Rust, C++) or "/" (a Go import path's tail).
_PACKAGE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|/)[A-Za-z_][A-Za-z0-9_]*)*")


class GenerateError(ValueError):
    """Bad target, parameters or templates: a usage error, reported without a traceback."""


@dataclass(frozen=True)
class Request:
    target: str
    version: str
    profile: str
    params: Mapping[str, str] = field(default_factory=dict)
    templates: Path | None = None
    """A folder of the downstream's own templates (replaces the built-in target's folder)."""
    model: Mapping[str, Any] | None = None
    """A resolved model given as data (a version this package does not ship yet, e.g. while it is
    being written); by default the package's model of ``version``."""
    schema: Mapping[str, Any] | None = None
    """The bundled schema of ``model`` (the ``jsonschema`` target needs it with ``model``)."""
    models: Mapping[str, Mapping[str, Any]] | None = None
    """Every version's resolved model, by version (the ``contract`` facts and ``versions`` span them);
    by default the package's versions, and ``model`` when it is newer."""
    schemas: Mapping[str, Mapping[str, Any]] | None = None
    """Every version's bundled schema, by version (``versions[].schema``); by default the package's
    bundled schemas of the versions it ships, and ``schema`` for ``model``."""


def _py_regex(pattern: str) -> str:
    """An ECMA-262 pattern for Python's ``re``: ``$`` outside a class matches only at the very end
    (Python's ``$`` also matches before a final newline, which would accept ``"abc\\n"``)."""
    out: list[str] = []
    in_class = escaped = False
    for char in pattern:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            out.append(char)
            escaped = True
        elif char == "[":
            in_class = True
            out.append(char)
        elif char == "]":
            in_class = False
            out.append(char)
        elif char == "$" and not in_class:
            out.append(r"\Z")
        else:
            out.append(char)
    return "".join(out)


def _py_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The decoding spec with every ``pattern`` in Python's dialect (see ``_py_regex``)."""

    def convert(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: (_py_regex(v) if k == "pattern" and isinstance(v, str) else convert(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [convert(item) for item in node]
        return node

    converted: dict[str, Any] = convert(spec)
    return converted


def _py_literal(value: Any) -> str:
    """A JSON value as a Python literal (``true`` -> ``True``)."""
    return repr(value)


def _comment_lines(text: str, prefix: str, width: int = 96) -> str:
    """``text`` as comment lines: paragraphs (split on blank lines) wrapped to ``width`` characters of
    text each, separated by a bare ``prefix`` line; ``prefix`` holds the indentation and the marker."""
    paragraphs = [" ".join(p.split()) for p in (text or "").strip().split("\n\n") if p.strip()]
    lines: list[str] = []
    for paragraph in paragraphs:
        if lines:
            lines.append(prefix.rstrip())
        wrapped = textwrap.wrap(paragraph, width=width, break_on_hyphens=False, break_long_words=False)
        lines.extend(f"{prefix} {line}" for line in wrapped)
    return "\n".join(lines)


def _environment(folders: list[Path], autoescape: bool = False) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(f) for f in folders]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=autoescape,
    )
    env.filters.update(
        pascal=views.pascal,
        camel=views.camel,
        snake=views.snake,
        screaming=views.screaming,
        py_ident=views.py_ident,
        rust_ident=views.rust_ident,
        go_ident=views.go_ident,
        py_literal=_py_literal,
        py_regex=_py_regex,
        py_spec=_py_spec,
        json=lambda value: json.dumps(value, ensure_ascii=False),
        ts_key=lambda name: name if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", name) else json.dumps(name),
        json_pretty=lambda value: json.dumps(value, indent=2, ensure_ascii=False),
        comment=_comment_lines,
    )
    return env


def render_template(folder: Path, name: str, context: dict[str, Any]) -> str:
    """One template of ``folder`` rendered over ``context`` with the filters and shared macros of every
    target: how ``python -m generators`` renders the repository's documentation tables
    (generators/templates/docs), whose contexts are not a contract version's."""
    return _environment([folder, TEMPLATES / "_shared"]).get_template(name).render(context)


def html_environment(folder: Path) -> jinja2.Environment:
    """The renderer's environment (its filters and shared macros) over ``folder``, escaping every value
    as HTML: how ``verify-contract docs`` renders the documentation site's pages."""
    return _environment([folder, TEMPLATES / "_shared"], autoescape=True)


def header_style(source: str, filename: str) -> HeaderStyle:
    """The header style a template's source declares, else the one of its output's suffix ("#" if unknown)."""
    found = _HEADER_DIRECTIVE.match(source)
    if found is None:
        return _COMMENT_STYLE.get(Path(filename).suffix.lower(), "#")
    marks = found["style"].split()
    if marks == ["none"]:
        return None
    if len(marks) == 1:
        return marks[0]
    if len(marks) == 2:
        return (marks[0], marks[1])
    raise GenerateError(f"{filename}: the header style is a line prefix, two block marks or none, not {marks}")


def _header(text: str, filename: str, header: GeneratedHeader, style: HeaderStyle = "#") -> str:
    lines = header_lines(header)
    if filename.endswith(".json"):
        document = json.loads(text)
        if not isinstance(document, dict):
            raise GenerateError(f"{filename}: a generated JSON file must be an object (its header is $comment)")
        return json.dumps({"$comment": "  ".join(lines), **document}, indent=2, ensure_ascii=False) + "\n"
    if style is None:
        if read_header(text) != header:
            raise GenerateError(
                f"{filename}: its template says `header: none` but does not write {{{{ header_lines }}}} near its "
                "top (within 2,048 characters), where --check and --identify look for it"
            )
        return text
    if isinstance(style, tuple):
        opening, closing = style
        return "".join(f"{opening} {line} {closing}\n" for line in lines) + "\n" + text.lstrip("\n")
    return "".join(f"{style} {line}\n" for line in lines) + "\n" + text.lstrip("\n")


def _models(request: Request, model: ResolvedModel) -> dict[str, Mapping[str, Any]]:
    """Every version's model as data: the request's, else the shipped versions' and ``model`` itself,
    which may be newer."""
    if request.models is not None:
        return {**request.models, model.version: model.raw}
    from verify_contract.contract import CONTRACT_VERSIONS

    return {**{v: contract_model(v).raw for v in CONTRACT_VERSIONS}, model.version: model.raw}


def bundled_schema(version: str) -> dict[str, Any]:
    """The version's released schema with the registry enum inlined (one file, no external reference)."""
    from verify_contract.contract import schema_document

    document = schema_document(version)
    kinds = schema_document(version, FAILURE_KINDS_FILE) if uses_registry(document) else None
    return bundle(document, kinds)


def _schemas(request: Request, model: ResolvedModel, models: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Every version's bundled schema the request knows: its ``schemas``, else the package's of the shipped
    versions among ``models``; a ``model`` given as data comes with its own ``schema`` (or none)."""
    from verify_contract.contract import CONTRACT_VERSIONS

    known: dict[str, Mapping[str, Any]]
    if request.schemas is not None:
        known = dict(request.schemas)
    else:
        known = {version: bundled_schema(version) for version in models if version in CONTRACT_VERSIONS}
        if request.model is not None:  # the model given as data may differ from the shipped one
            known.pop(model.version, None)
    if request.model is not None and request.schema is not None:
        known[model.version] = request.schema
    return known


def _params(request: Request) -> dict[str, str]:
    params = {**DEFAULT_PARAMS, **{k: v for k, v in request.params.items() if v is not None}}
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", params["name"]):
        raise GenerateError(f"--name {params['name']!r} is not an identifier (it names a module or file)")
    if request.templates is None and not re.fullmatch(r"[a-z_][a-z0-9_]*", params["package"]):
        raise GenerateError(f"--package {params['package']!r} is not a lower-case identifier (a Go package name)")
    if not _PACKAGE.fullmatch(params["package"]):
        raise GenerateError(
            f"--package {params['package']!r} is not a package name: identifiers joined by '.', '::' or '/'"
        )
    if params["lang"] not in CONSTANTS_LANGUAGES:
        raise GenerateError(f"--lang must be one of {', '.join(CONSTANTS_LANGUAGES)}, not {params['lang']!r}")
    return params


def render(request: Request) -> dict[str, str]:
    """Relative file name -> content of every file the request generates. Nothing is written."""
    if request.templates is None and request.target not in TARGETS:
        raise GenerateError(f"unknown target {request.target!r}; targets: {', '.join(TARGETS)}")
    try:
        model = model_from_data(dict(request.model)) if request.model is not None else contract_model(request.version)
    except ValueError as error:
        raise GenerateError(str(error)) from None
    params = _params(request)
    per_profile = TARGETS.get(request.target, True)
    merged = request.profile == ALL_PROFILES
    if merged and request.templates is None:
        raise GenerateError(
            f"--profile {ALL_PROFILES} (every profile of the version merged) is for --templates; the built-in "
            f"target {request.target!r} describes one profile ({', '.join(model.profiles)})"
        )
    if request.templates is not None:
        if not request.templates.is_dir():
            raise GenerateError(f"--templates {request.templates}: not a directory")
        folder = request.templates
    elif request.target == "constants":
        folder = TEMPLATES / "constants" / params["lang"]
    else:
        folder = TEMPLATES / request.target
    models = _models(request, model)
    schemas = _schemas(request, model, models)
    try:  # ViewError is a ValueError
        context: dict[str, Any] = {
            "model": model.raw,
            "params": params,
            "target": request.target,
            "contract": binding.contract_facts(models),
            "versions": binding.version_list(models, schemas),
            "registry": binding.registry(models),
        }
    except ValueError as error:
        raise GenerateError(str(error)) from None
    schema = schemas.get(model.version) if merged or per_profile else None
    if merged:
        try:
            context.update(binding=binding.binding(model.raw), profile=ALL_PROFILES)
        except ValueError as error:
            raise GenerateError(str(error)) from None
        if schema is not None:
            context["schema"] = dict(schema)
    elif per_profile:
        mask_roles = mask_locations(m["roles"] for m in binding.ordered_models(models))
        try:
            view = views.build_view(model.raw, request.profile, mask_roles)
        except views.ViewError as error:
            raise GenerateError(str(error)) from None
        context.update(view=view, spec=views.decoding_spec(view), profile=request.profile)
        if schema is not None:
            context["schema"] = profile_bundle(dict(schema), model.profiles[request.profile].definition)
    else:
        context.update(view=views.kinds_view(model.raw), profile="-")
    header = GeneratedHeader(request.target, model.version, context["profile"], model.source_hash)
    context["header_lines"] = header_lines(header)  # for a template that places the header itself
    env = _environment([folder, TEMPLATES / "_shared"])
    names = sorted(p.name for p in folder.iterdir() if p.suffix == ".j2" and not p.name.startswith("_"))
    if not names:
        raise GenerateError(f"{folder}: no templates (*.j2 files not starting with _)")
    files: dict[str, str] = {}
    for name in names:
        output = name[: -len(".j2")].replace("{name}", params["name"]).replace("{package}", params["package"])
        try:
            source = env.loader.get_source(env, name)[0] if env.loader is not None else ""
            text = env.get_template(name).render(context)
        except jinja2.TemplateError as error:
            where = f"{name}:{error.lineno}" if isinstance(error, jinja2.TemplateSyntaxError) else name
            raise GenerateError(f"template {where}: {error}") from None
        files[output] = _header(text, output, header, header_style(source, output))
    return files
