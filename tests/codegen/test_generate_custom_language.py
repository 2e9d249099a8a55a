"""Custom templates for languages the project does not ship: the header's comment style, `--package` in the
language's own syntax, and the worked Java example (docs/examples/java-templates) compiling and agreeing
with the reference on the effective mask of every valid vector of the latest version."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from verify_contract.cli import main as cli
from verify_contract.codegen import GenerateError, Request, read_header, render
from verify_contract.contract._model import contract_model
from verify_contract.contract._versions import CONTRACT_VERSIONS

from conftest import VECTORS

ROOT = Path(__file__).resolve().parents[2]
JAVA_TEMPLATES = ROOT / "docs" / "examples" / "java-templates"
LATEST = CONTRACT_VERSIONS[-1]
PACKAGE = "com.example.verify"


def _templates(tmp_path: Path, files: dict[str, str]) -> Path:
    folder = tmp_path / "templates"
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _render(folder: Path, **params: str) -> dict[str, str]:
    return render(Request("mine", LATEST, "core", params, templates=folder))


def test_header_follows_the_language_or_the_template(tmp_path: Path) -> None:
    folder = _templates(
        tmp_path,
        {
            "{name}.md.j2": "# Contract {{ view.version }}\n",
            "{name}.kt.j2": "package {{ params.package }}\n",
            "{name}.ini.j2": "{# verify-contract header: ; #}\n[contract]\n",
            "{name}.adoc.j2": "{# verify-contract header: //// //// #}\n= Contract\n",
        },
    )
    files = _render(folder, package=PACKAGE)
    markdown, kotlin, ini, adoc = (files[f"verify_response.{ext}"] for ext in ("md", "kt", "ini", "adoc"))
    headings = [line for line in markdown.splitlines() if line.startswith("# ")]
    assert markdown.startswith("<!-- Code generated") and headings == [f"# Contract {LATEST}"]  # one H1
    assert kotlin.startswith("// Code generated") and f"package {PACKAGE}\n" in kotlin
    assert ini.startswith("; Code generated") and "\n[contract]\n" in ini
    assert adoc.startswith("//// Code generated") and adoc.splitlines()[1].endswith(" ////")
    for text in files.values():
        header = read_header(text)
        assert header is not None and (header.target, header.contract_version) == ("mine", LATEST)


def test_a_template_may_place_the_header_itself(tmp_path: Path) -> None:
    placed = '{# verify-contract header: none #}\n{"note": "{{ header_lines[1] }}"}\n'
    files = _render(_templates(tmp_path, {"{name}.txt.j2": placed}))
    (text,) = files.values()
    assert text.startswith('{"note": "verify-contract: target=mine') and read_header(text) is not None
    forgot = _templates(tmp_path / "forgot", {"{name}.txt.j2": "{# verify-contract header: none #}\nbody\n"})
    with pytest.raises(GenerateError, match="header_lines"):
        _render(forgot)


def test_package_takes_each_languages_syntax(tmp_path: Path) -> None:
    folder = _templates(tmp_path, {"{name}.txt.j2": "{{ params.package }}\n"})
    for package in (PACKAGE, "verify_contract::generated", "example.com/verify"):
        (text,) = _render(folder, package=package).values()
        assert text.endswith(f"\n{package}\n")
    for bad in ("com..verify", "com.example.", "1verify", "com example"):
        with pytest.raises(GenerateError, match="not a package name"):
            _render(folder, package=bad)
    with pytest.raises(GenerateError, match="Go package name"):  # the built-in go target: a Go package name
        render(Request("go", LATEST, "core", {"package": PACKAGE}))


def _java(value: Any) -> str:
    """A JSON value as a Java expression (objects keep null members: LinkedHashMap, not Map.of)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "Boolean.TRUE" if value else "Boolean.FALSE"
    if isinstance(value, (int, float)):
        return f'new java.math.BigDecimal("{value!r}")'
    if isinstance(value, str):
        return json.dumps(value)  # ASCII with \\u escapes: a Java string literal
    if isinstance(value, list):
        return f"java.util.Arrays.asList(new Object[] {{{', '.join(map(_java, value))}}})"
    members = ", ".join(f"{json.dumps(key)}, {_java(item)}" for key, item in value.items())
    return f"object({members})"


JAVA_MAIN = """package {package};

import java.util.LinkedHashMap;
import java.util.Map;

public final class Main {{
    static Map<String, Object> object(Object... members) {{
        Map<String, Object> built = new LinkedHashMap<>();
        for (int i = 0; i < members.length; i += 2) {{
            built.put((String) members[i], members[i + 1]);
        }}
        return built;
    }}

    static String mask(Map<String, Object> document) {{
        try {{
            return String.valueOf(VerifyContract.effectiveMask(document));
        }} catch (IllegalArgumentException refused) {{
            return "refused";
        }}
    }}

    public static void main(String[] args) {{
        var reward = new VerifyContract.VerifyResponse({arguments});
        System.out.println(reward.reward().toPlainString());
        System.out.println(VerifyContract.CONTRACT_VERSION + " " + VerifyContract.REGISTERED_FAILURE_KINDS.size());
{cases}
    }}
}}
"""


@pytest.mark.toolchain
def test_java_example_compiles_and_reads_the_mask(tmp_path: Path) -> None:
    for tool in ("javac", "java"):
        if shutil.which(tool) is None:
            if os.environ.get("VERIFY_CONTRACT_REQUIRE_ALL_LANGUAGES") == "1":
                pytest.fail(f"{tool} is missing (.ci/run installs a JDK)")
            pytest.skip(f"{tool} is not installed")
    out = tmp_path / "src"
    args = ["--templates", str(JAVA_TEMPLATES), "--out", str(out), "--package", PACKAGE, "--name", "VerifyContract"]
    assert cli(["generate", "java-example", *args]) == 0
    assert cli(["generate", "java-example", *args, "--check"]) == 0  # the block-comment header is found
    vectors = [
        v
        for v in VECTORS
        if v.has_instance and v.valid and v.contract_version == LATEST and v.profile == "core"
        if isinstance(v.instance, dict)
    ]
    assert len(vectors) > 10
    members = [f.name for f in contract_model(LATEST).fields_of("core") if f.parent == ""]
    thirty_digits = "123456789012345678901234567890"
    big = f'new java.math.BigDecimal("{thirty_digits}")'
    arguments = ", ".join(big if i == 0 else "null" for i in range(len(members)))
    assert members[0] == "reward"
    cases = "\n".join(f"        System.out.println(mask({_java(v.instance)}));" for v in vectors)
    (out / "Main.java").write_text(JAVA_MAIN.format(package=PACKAGE, arguments=arguments, cases=cases))
    compiled = subprocess.run(
        ["javac", "-d", str(tmp_path / "classes"), *map(str, out.glob("*.java"))],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert compiled.returncode == 0, compiled.stderr[-3000:]
    ran = subprocess.run(
        ["java", "-cp", str(tmp_path / "classes"), f"{PACKAGE}.Main"], capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    lines = ran.stdout.splitlines()
    kinds = contract_model(LATEST).failure_kinds
    assert lines[0] == thirty_digits
    assert lines[1] == f"{LATEST} {len(kinds['registered']) if kinds else 0}"
    expected = ["refused" if v.effective_mask is None else str(v.effective_mask).lower() for v in vectors]
    assert lines[2:] == expected
