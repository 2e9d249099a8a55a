"""Write the documentation site: every page rendered with the bindings' Jinja2 renderer
(``verify_contract.codegen.renderer.html_environment``) over what ``_content`` gathered, the search index, the
storm's plot and the static assets. Plain HTML with relative links: any static host serves it (GitHub Pages
included) and it reads from the file system as well."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from verify_contract.contract import mask_locations
from verify_contract.docsite import _content as content
from verify_contract.docsite._errors import SiteError
from verify_contract.docsite._spec import render_spec, section_anchor, spec_section_titles

HERE = Path(str(resources.files("verify_contract.docsite")))
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"

SEARCH_INDEX = "search-index.js"
PLOT = "assets/storm.png"
# The storm of examples/storm.py under README's budget: a warning above 10%, a breach above 20% of a window,
# per environment.
STORM_BUDGET = ("--max-masked", "0.2", "--warn-masked", "0.1", "--group-by", "_ng_environment_server")


@dataclass(frozen=True)
class Page:
    path: str
    template: str
    title: str
    context: dict[str, Any]


def nav(newest: str) -> tuple[tuple[str, str], ...]:
    return (
        ("index.html", "Home"),
        (content.version_page(newest), "Fields"),
        ("kinds/index.html", "Failure kinds"),
        ("rules/index.html", "Rules"),
        ("profiles/index.html", "Profiles"),
        ("obligations/index.html", "Obligations"),
        ("budget/index.html", "Failure budgets"),
        ("changes/index.html", "Changes"),
        ("spec/index.html", "SPEC"),
        ("cli/index.html", "CLI"),
        ("names/index.html", "All names"),
    )


def _root(path: str) -> str:
    return "../" * path.count("/")


def _names(site: content.SiteContent) -> list[dict[str, Any]]:
    """Every name the site defines, with its kind, a line of text and its URL (relative to the root): the
    search index and the index of all names."""
    names: list[dict[str, Any]] = []
    latest = site.versions[-1]
    for version in site.versions:
        for entry in version.fields:
            member = entry.member
            names.append(
                {
                    "name": entry.anchor,
                    "kind": "field",
                    "version": version.version,
                    "text": member.description or member.title or "",
                    "url": f"{content.version_page(version.version)}#{entry.anchor}",
                    "deprecated": member.deprecated,
                    "replaced_by": (
                        f"{content.version_page(version.version)}#{entry.replaced_by.anchor}"
                        if entry.replaced_by
                        else None
                    ),
                    "latest": version is latest,
                }
            )
    for kind in site.kinds:
        deprecated = kind.info.get("deprecated")
        names.append(
            {
                "name": kind.id,
                "kind": "failure kind",
                "text": kind.info["brief"],
                "url": f"kinds/index.html#{kind.id}",
                "deprecated": bool(deprecated),
                "replaced_by": f"kinds/index.html#{deprecated['renamed_to']}"
                if deprecated and deprecated.get("renamed_to")
                else None,
                "latest": True,
            }
        )
    for rule in site.rules:
        names.append(
            {
                "name": rule.id,
                "kind": "rule",
                "text": rule.summary,
                "url": f"rules/index.html#{rule.id}",
                "deprecated": False,
                "replaced_by": None,
                "latest": True,
            }
        )
    for rule_id, summary in site.budget_rules.items():
        names.append(
            {
                "name": rule_id,
                "kind": "budget rule",
                "text": summary,
                "url": f"rules/index.html#{rule_id}",
                "deprecated": False,
                "replaced_by": None,
                "latest": True,
            }
        )
    for obligation in site.obligations:
        names.append(
            {
                "name": obligation.id,
                "kind": f"{obligation.role} obligation",
                "text": f"{obligation.level.value} {obligation.text}",
                "url": f"obligations/index.html#{obligation.id}",
                "deprecated": False,
                "replaced_by": None,
                "latest": True,
            }
        )
    for command in site.help_texts:
        if command:
            names.append(
                {
                    "name": f"verify-contract {command}",
                    "kind": "command",
                    "text": site.help_texts[command].split("\n\n", 2)[1].strip()
                    if "\n\n" in site.help_texts[command]
                    else "",
                    "url": f"cli/index.html#{command}",
                    "deprecated": False,
                    "replaced_by": None,
                    "latest": True,
                }
            )
    for named in names:
        named.setdefault("version", None)
    return names


def _code_links(names: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """A name as SPEC.md writes it in code -> the URL of its definition and its one line (fields at their
    newest version)."""
    links: dict[str, tuple[str, str]] = {}
    for entry in names:
        if entry["kind"] == "field" and not entry["latest"]:
            continue
        links.setdefault(entry["name"], (entry["url"], f"{entry['kind']}: {entry['text']}"))
    return links


def _spec_part(spec: str, number: str) -> str:
    """SPEC.md's section ``number`` with its subsections, heading included."""
    lines = spec.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"## {number}. ") or line == f"## {number}.")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join(lines[start:end])


def _storm_plot(repo: Path, out: Path) -> None:
    """examples/storm.py's run checked by the real ``check`` with README's budget, its ``--plot`` written."""
    storm = repo / "examples" / "storm.py"
    if not storm.is_file():
        raise SiteError(f"{storm}: missing (the budget page plots the storm it writes)")
    (out / PLOT).parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="verify-contract-docs-") as scratch:
        wrote = subprocess.run([sys.executable, str(storm), scratch], capture_output=True, text=True)
        if wrote.returncode != 0:
            raise SiteError(f"{storm} failed: {_last_line(wrote)}")
        rollouts = str(Path(scratch) / "rollouts.jsonl")
        done = subprocess.run(
            [sys.executable, "-m", "verify_contract", "check", rollouts, *STORM_BUDGET, "--plot", str(out / PLOT)],
            capture_output=True,
            text=True,
        )
    if not (out / PLOT).is_file():
        raise SiteError(f"the storm's plot was not written: {_last_line(done)}")


def _last_line(done: subprocess.CompletedProcess[str]) -> str:
    """What a failed step said last (its error), else its exit code: one line for the one-line error."""
    said = done.stderr.strip().splitlines()
    return said[-1] if said else f"exit code {done.returncode}"


def pages(site: content.SiteContent, spec: str) -> list[Page]:
    names = _names(site)
    links = _code_links(names)
    sections = spec_section_titles(spec)
    latest = site.versions[-1]
    result = [
        Page("index.html", "home.html.j2", "The verify-response contract", {}),
        *(
            Page(
                content.version_page(v.version),
                "version.html.j2",
                f"Contract {v.version}: fields",
                {
                    "entry": v,
                    "mask_locations": mask_locations(
                        m.model.roles for m in site.versions[: site.versions.index(v) + 1]
                    ),
                },
            )
            for v in site.versions
        ),
        Page("kinds/index.html", "kinds.html.j2", "Failure kinds", {}),
        Page("rules/index.html", "rules.html.j2", "Rules", {}),
        Page(
            "profiles/index.html",
            "profiles.html.j2",
            "Profiles and the effective mask",
            {"mask_locations": mask_locations(v.model.roles for v in site.versions)},
        ),
        Page("obligations/index.html", "obligations.html.j2", "Producer and consumer obligations", {}),
        Page("changes/index.html", "changes.html.j2", "Changes between versions", {}),
        Page("cli/index.html", "cli.html.j2", "Command line", {}),
        Page("names/index.html", "names.html.j2", "All names", {"names": sorted(names, key=_name_order)}),
    ]
    spec_page = render_spec(spec, links, "../")
    budget = render_spec(_spec_part(spec, "11"), links, "../", sections, "../spec/index.html")
    result.append(Page("spec/index.html", "spec.html.j2", "SPEC", {"body": spec_page.html}))
    result.append(Page("budget/index.html", "budget.html.j2", "Failure budgets", {"body": budget.html}))
    common = {
        "site": site,
        "latest": latest,
        "sections": sections,
        "section_anchor": section_anchor,
        "storm_budget": STORM_BUDGET,
        "reporters": content.KIND_REPORTERS,
        # a rule id's one line, shown where the id is used (a field's rules, a vector's findings)
        "rule_summaries": {r.id: r.summary.replace("`", "") for r in site.rules},
    }
    for page in result:
        page.context.update(common)
    return result


def _name_order(entry: dict[str, Any]) -> tuple[str, str, str]:
    return (entry["name"].lower(), entry["kind"], entry["version"] or "")


def build(out: Path, repo: Path) -> list[str]:
    """Write the site into ``out`` (emptied first when it holds an earlier build); the written pages."""
    spec_path = repo / "SPEC.md"
    if not spec_path.is_file() or not (repo / "schema" / "versions").is_dir():
        raise SiteError(f"{repo}: not a checkout of the verify-contract repository (no SPEC.md and schema/versions)")
    try:
        import markdown_it  # noqa: F401
        import matplotlib  # noqa: F401
    except ImportError as missing:
        raise SiteError(f"{missing.name} is missing: pip install 'verify-contract[docs]'") from None
    spec = spec_path.read_text(encoding="utf-8")
    site = content.gather(repo, spec)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / SEARCH_INDEX).is_file())):
        raise SiteError(f"{out}: not empty and not an earlier build of the site; give an empty or new folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    # Built beside ``out`` and moved into place whole: a failed build leaves no half site behind.
    scratch = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        scratch.chmod(0o755)  # mkdtemp's folder is the owner's alone; a site is for everyone to read
        written = _write(scratch, repo, site, spec)
        if out.exists():
            shutil.rmtree(out)
        scratch.rename(out)
    finally:
        if scratch.exists():
            shutil.rmtree(scratch)
    return written


def _inline_markdown() -> Any:
    """The ``md`` filter: one line of the model's text (a rule's summary, a field's description, a SPEC title,
    which write names in backticks) as inline HTML."""
    from markdown_it import MarkdownIt
    from markupsafe import Markup

    md = MarkdownIt("commonmark", {"html": False})
    return lambda text: Markup(md.renderInline(str(text or "")))  # safe: markdown-it escapes the text (no HTML)


def environment() -> Any:
    """The bindings' Jinja2 renderer over the site's templates, escaping HTML, with the ``md`` filter."""
    from verify_contract.codegen.renderer import html_environment

    env = html_environment(TEMPLATES)
    env.filters["md"] = _inline_markdown()
    return env


def render_page(env: Any, page: Page, newest: str) -> str:
    root = _root(page.path)
    return str(env.get_template(page.template).render(page.context, page=page, root=root, nav=nav(newest), plot=PLOT))


def _write(out: Path, repo: Path, site: content.SiteContent, spec: str) -> list[str]:
    shutil.copytree(STATIC, out / "assets")
    _storm_plot(repo, out)
    env = environment()
    written = []
    for page in pages(site, spec):
        target = out / page.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_page(env, page, site.versions[-1].version), encoding="utf-8")
        written.append(page.path)
    latest = out / content.version_page("latest")
    latest.parent.mkdir(parents=True, exist_ok=True)
    # versions/latest/ is the newest version's page under a stable address (a redirect, so anchors follow).
    newest = site.versions[-1].version
    latest.write_text(
        env.get_template("redirect.html.j2").render(target=f"../{newest}/index.html", version=newest),
        encoding="utf-8",
    )
    written.append(content.version_page("latest"))
    entries = [
        {k: entry[k] for k in ("name", "kind", "text", "url", "deprecated", "replaced_by")}
        | ({"version": entry["version"]} if entry["version"] else {})
        for entry in _names(site)
    ]
    # SPEC's sections too, by number and title: "3.5", "effective mask", "failure budgets" find their text.
    entries += [
        {
            "name": f"SPEC {number}",
            "kind": "SPEC section",
            "text": title.replace("`", ""),
            "url": f"spec/index.html#{section_anchor(number)}",
        }
        | {"deprecated": False, "replaced_by": None}
        for number, title in spec_section_titles(spec).items()
    ]
    index = json.dumps(entries, ensure_ascii=False, separators=(",", ":"))
    (out / SEARCH_INDEX).write_text(f"window.SEARCH_INDEX = {index};\n", encoding="utf-8")
    (out / ".nojekyll").write_text("", encoding="utf-8")  # GitHub Pages: serve the folder as it is
    return written
