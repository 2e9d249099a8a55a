"""``verify-contract docs``: the site built into a temporary folder; every internal link and anchor resolves;
every field, kind, rule and obligation of every version has its anchor (read from the model and the kit, not
from a list); each rule's page shows the line the real ``check`` prints for its vector; the changes are the
differ's; the pages are accessible in the basics (lang, one h1, headings in order, alt text, labelled search).
The built pages are not committed (``make docs`` writes them), so there is no drift to check."""

from __future__ import annotations

import itertools
import json
import re
from html import unescape
from pathlib import Path

import pytest

from verify_contract.budget import BUDGET_RULES
from verify_contract.cli import main
from verify_contract.conformance.obligations import OBLIGATIONS
from verify_contract.contract import contract_model, version_key
from verify_contract.diff import diff_specs
from verify_contract.generated import CONTRACT_VERSIONS, LATEST_VERSION
from verify_contract.vectors import load_vectors

from site_pages import ROOT, Parsed, build, pages, parse, resolve

VERSIONS = sorted(CONTRACT_VERSIONS, key=version_key)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("docs") / "site")


@pytest.fixture(scope="module")
def parsed(site: Path) -> dict[Path, Parsed]:
    return pages(site)


def test_every_internal_link_and_anchor_resolves(site: Path, parsed: dict[Path, Parsed]) -> None:
    checked = 0
    broken = []
    for page, content in parsed.items():
        for link in content.links:
            target = resolve(site, page, link)
            if target is None:
                continue
            path, fragment = target
            checked += 1
            if not path.is_file():
                broken.append(f"{page.relative_to(site)}: {link} (no file)")
            elif fragment and path.suffix == ".html" and fragment not in parsed[path].ids:
                broken.append(f"{page.relative_to(site)}: {link} (no anchor)")
    assert not broken, "\n".join(broken[:20])
    assert checked > 800  # every page's navigation, every field's rules, every name of the index


def test_no_link_leaves_the_site(parsed: dict[Path, Parsed]) -> None:
    """Offline: no page loads or links anything from elsewhere (no CDN, no external search)."""
    outside = [link for content in parsed.values() for link in content.links if re.match(r"[a-z]+:|//", link)]
    assert outside == []


def test_the_search_index_names_every_anchor_and_its_links_resolve(site: Path, parsed: dict[Path, Parsed]) -> None:
    text = (site / "search-index.js").read_text(encoding="utf-8")
    entries = json.loads(text.removeprefix("window.SEARCH_INDEX = ").rstrip().removesuffix(";"))
    home = site / "index.html"
    for entry in entries:
        for link in filter(None, (entry["url"], entry["replaced_by"])):
            found = resolve(site, home, link)
            assert found is not None and found[1] in parsed[found[0]].ids, link
    names = {(e["kind"], e["name"]) for e in entries}
    assert ("failure kind", "session_lost") in names and ("rule", "reward-type") in names
    assert ("SPEC section", "SPEC 11") in names and ("SPEC section", "SPEC 4.1") in names


def test_every_field_kind_rule_and_obligation_of_every_version_has_its_anchor(parsed: dict[Path, Parsed], site: Path):
    kinds = parsed[site / "kinds" / "index.html"].ids
    rules = parsed[site / "rules" / "index.html"].ids
    obligations = parsed[site / "obligations" / "index.html"].ids
    for version in VERSIONS:
        model = contract_model(version)
        fields = parsed[site / "versions" / version / "index.html"].ids
        assert {".".join(f.path) for f in model.fields} <= fields, version
        assert model.registered_kinds() <= kinds, version
        assert {rule["id"] for rule in model.rules} <= rules, version
        assert set(model.profiles) <= parsed[site / "profiles" / "index.html"].ids
    assert set(BUDGET_RULES) <= rules
    assert set(OBLIGATIONS) <= obligations
    assert "session_lost" in kinds and "reward-type" in rules  # the issue's own examples


def test_a_deprecated_field_links_to_its_replacement(site: Path) -> None:
    deprecated = [(v, f) for v in VERSIONS for f in contract_model(v).fields if f.deprecated]
    assert deprecated  # the legacy mask location, deprecated in 1.2.0
    for version, member in deprecated:
        text = (site / "versions" / version / "index.html").read_text(encoding="utf-8")
        section = text[text.index(f'id="{".".join(member.path)}"') :]
        section = section[: section.index("</section>")]
        replacement = contract_model(version).role("mask")
        assert replacement is not None
        assert f'class="replacement" href="#{".".join(replacement.path)}"' in section
        assert f"Deprecated since {member.deprecated_since}" in section


def _finding_lines(text: str) -> list[str]:
    return [unescape(line) for line in re.findall(r'<pre class="check"[^>]*><code>([^<]*)</code></pre>', text)]


def test_each_rule_shows_the_line_check_prints_for_its_vector(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rules page's line is the one `verify-contract check` prints for the vector, run here as a user runs
    it (the command line, on a file named after the vector)."""
    vectors = {v.id: v for v in load_vectors()}
    lines = _finding_lines((site / "rules" / "index.html").read_text(encoding="utf-8"))
    assert len(lines) >= 18  # every rule that some one-line vector fails
    for line in lines:
        name, _, rest = line.partition(":")
        vector = vectors[name.removesuffix(".jsonl")]
        path = tmp_path / name
        path.write_text(vector.text + "\n", encoding="utf-8")
        main(["check", str(path), "--contract-version", vector.contract_version, "--profile", vector.profile])
        printed = capsys.readouterr().out
        assert f"{path}:{rest}" in printed.splitlines(), line


def test_the_changes_page_holds_every_change_the_differ_reports(site: Path) -> None:
    text = unescape((site / "changes" / "index.html").read_text(encoding="utf-8"))
    for old, new in itertools.pairwise(VERSIONS):
        report = diff_specs(str(ROOT / "schema" / "versions" / old), str(ROOT / "schema" / "versions" / new))
        section = text[text.index(f'id="{old}-{new}"') :]
        section = section[: section.index("</section>")]
        assert f"Required bump: <strong>{report.required_bump.value}</strong>" in section
        text_only = re.sub(r"<[^>]+>", "", section)  # the message's `names` are rendered as code
        for change in report.changes:
            assert change.message.replace("`", "") in text_only and f"<code>{change.rule}</code>" in section


def test_spec_cross_references_are_links(site: Path) -> None:
    text = (site / "spec" / "index.html").read_text(encoding="utf-8")
    assert 'section <a href="#section-3.5">3.5</a>' in text
    assert '<a href="../rules/index.html#json-duplicate-key" title="rule: An object repeats' in text
    assert '<a href="../obligations/index.html#producer-valid" title="producer obligation: MUST emit' in text
    assert "I-JSON section 2.3" in text  # another document's section stays text
    assert '<h3 id="section-4.1">' in text


def test_the_cli_page_is_the_real_help(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = unescape((site / "cli" / "index.html").read_text(encoding="utf-8"))
    for command in ("check", "generate", "docs"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        first_option = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("--"))
        assert first_option.split()[0] in text, command
    assert 'id="target-python-pydantic"' in text


def test_the_storm_plot_is_a_picture(site: Path) -> None:
    from matplotlib import image

    pixels = image.imread(site / "assets" / "storm.png")
    assert pixels.shape[0] > 200 and pixels.shape[1] > 400
    assert float(pixels[..., :3].std()) > 0.05  # not one flat colour


def test_pages_meet_the_accessibility_basics(parsed: dict[Path, Parsed], site: Path) -> None:
    for page, content in parsed.items():
        where = page.relative_to(site)
        assert content.lang == "en", where
        assert content.headings.count(1) == 1, where
        assert content.headings[0] == 1, where
        for before, after in itertools.pairwise(content.headings):
            assert after <= before + 1, f"{where}: h{before} then h{after}"
        assert all(image.get("alt") for image in content.images), where
        assert set(content.inputs) <= content.labels, where
        if where.parts[-2:] != ("latest", "index.html"):
            assert "search" in content.inputs, where


def test_the_version_pages_switch_between_every_version(parsed: dict[Path, Parsed], site: Path) -> None:
    for version in VERSIONS:
        page = site / "versions" / version / "index.html"
        targets = {resolve(site, page, link) for link in parsed[page].links}
        assert all((site / "versions" / v / "index.html", "") in targets for v in VERSIONS)
    latest = (site / "versions" / "latest" / "index.html").read_text(encoding="utf-8")
    assert f"../{LATEST_VERSION}/index.html" in latest


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", "--out", str(tmp_path / "site"), "--repo", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "not a checkout of the verify-contract repository" in error
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me", encoding="utf-8")
    assert main(["docs", "--out", str(tmp_path / "mine"), "--repo", str(ROOT)]) == 2
    assert "not an earlier build of the site" in capsys.readouterr().err
    assert (tmp_path / "mine" / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_a_rebuild_replaces_the_earlier_site(site: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(out)
    (out / "stale.html").write_text("<p>old</p>", encoding="utf-8")
    assert main(["docs", "--out", str(out), "--repo", str(ROOT)]) == 0
    assert not (out / "stale.html").exists()
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == sorted(p.relative_to(site) for p in site.rglob("*"))
    assert parse(out / "index.html").ids == parse(site / "index.html").ids


def test_every_rule_url_check_prints_resolves_on_the_site(
    site: Path, parsed: dict[Path, Parsed], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check --docs-url` pointed at the built site: each finding's URL (the directory form a host serves,
    rules/#RULE) names an anchor of the rules page; every rule id check can report has one."""
    from verify_contract.cli._check_output import rule_url
    from verify_contract.findings import RULES

    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(v.text for v in load_vectors() if "\n" not in v.text) + "\n", encoding="utf-8")
    main(["check", str(results), "--format", "json", "--docs-url", site.as_uri(), "--max-findings", "100000"])
    urls = {f["docs_url"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert len(urls) >= 12  # the vectors' rules under the latest core profile
    for rule in (*RULES, *BUDGET_RULES):
        url = rule_url(site.as_uri(), rule)
        assert url is not None
        urls.add(url)
    rules_page = parsed[site / "rules" / "index.html"]
    for url in urls:
        path, _, anchor = url.removeprefix(site.as_uri() + "/").partition("#")
        assert (site / path / "index.html").is_file() and anchor in rules_page.ids, url


def test_a_renamed_kind_links_to_its_replacement(tmp_path: Path) -> None:
    """No kind is deprecated yet; a registry that renames one (as the registry's rules allow) gets the link on the
    kinds page and in the index of names, and the link resolves."""
    from dataclasses import replace

    from verify_contract.contract import model_from_data
    from verify_contract.docsite import _build, _content

    raw = json.loads(json.dumps(contract_model(LATEST_VERSION).raw))
    old, new = raw["failure_kinds"]["registered"][:2]
    old["deprecated"] = {"in": LATEST_VERSION, "reason": "renamed", "renamed_to": new["id"]}
    renamed = model_from_data(raw)
    models = [*(_content.models()[:-1]), renamed]
    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    site = replace(_content.gather(ROOT, spec), kinds=_content.kind_entries(models, load_vectors(), []))
    env = _build.environment()
    by_path = {page.path: page for page in _build.pages(site, spec)}
    for path in ("kinds/index.html", "names/index.html"):
        (tmp_path / path).parent.mkdir()
        (tmp_path / path).write_text(_build.render_page(env, by_path[path], LATEST_VERSION), encoding="utf-8")
    kinds = (tmp_path / "kinds" / "index.html").read_text(encoding="utf-8")
    row = kinds[kinds.index(f'<tr id="{old["id"]}"') :]
    row = row[: row.index("</tr>")]
    assert f'replaced by <a class="replacement" href="#{new["id"]}"><code>{new["id"]}</code></a>' in row
    assert f'id="{new["id"]}"' in kinds
    names = (tmp_path / "names" / "index.html").read_text(encoding="utf-8")
    assert f'href="../kinds/index.html#{new["id"]}">replacement</a>' in names


def test_every_section_reference_of_the_spec_resolves() -> None:
    """A "section N" of SPEC.md that names no heading would be left as text: none does."""
    from verify_contract.docsite._spec import render_spec

    rendered = render_spec((ROOT / "SPEC.md").read_text(encoding="utf-8"), {}, "../")
    assert rendered.unresolved == []
    assert len(rendered.sections) > 30


def test_the_build_needs_no_network(tmp_path: Path) -> None:
    """Built in a network namespace of its own (no interface but a down loopback): nothing is fetched."""
    import shutil
    import subprocess
    import sys

    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot make a network namespace here (unshare -n needs root or user namespaces)")
    probe = "import socket; s = socket.socket(); s.settimeout(2); raise SystemExit(s.connect_ex(('192.0.2.1', 80)))"
    assert subprocess.run([unshare, "-n", sys.executable, "-c", probe]).returncode != 0  # no network in there
    command = [unshare, "-n", sys.executable, "-m", "verify_contract", "docs", "--out", str(tmp_path / "site")]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "kinds" / "index.html").is_file() and (
        tmp_path / "site" / "assets" / "storm.png"
    ).is_file()


def test_a_failing_step_is_one_line_and_leaves_no_half_site(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "schema", repo / "schema")
    shutil.copy(ROOT / "SPEC.md", repo / "SPEC.md")
    (repo / "examples").mkdir()
    (repo / "examples" / "storm.py").write_text('raise SystemExit("cannot write the storm")\n', encoding="utf-8")
    assert main(["docs", "--out", str(tmp_path / "site"), "--repo", str(repo)]) == 2
    error = capsys.readouterr().err
    assert error == f"verify-contract docs: {repo / 'examples' / 'storm.py'} failed: cannot write the storm\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo"]  # neither the site nor its scratch folder
