"""The repository's bindings come from ``verify-contract generate --templates``: each template folder under
generators/templates that ``python -m generators`` renders for the Go, Rust, TypeScript and Python bindings
(types, runtime facts, and the tables: bundled schemas, the registry, schema-rule tables, the ``latest``
re-exports), rendered by the command line (``--profile all``), gives the committed file byte for byte (Go
after gofmt, which ``python -m generators`` runs too)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from verify_contract.cli import main as cli
from verify_contract.codegen import read_header
from verify_contract.contract._versions import CONTRACT_VERSIONS, LATEST_VERSION

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "generators" / "templates"
GENERATED_PYTHON = ROOT / "bindings" / "python" / "verify_contract" / "generated"


def _module(version: str) -> str:
    return "v" + version.replace(".", "_")


def _generate(target: str, folder: str, version: str, out: Path, *params: str) -> list[Path]:
    argv = ["generate", target, "--templates", str(TEMPLATES / folder), "--contract-version", version]
    assert cli([*argv, "--profile", "all", "--out", str(out), *params]) == 0
    return sorted(p for p in out.iterdir() if p.is_file())


def _gofmt(path: Path) -> str:
    if shutil.which("gofmt") is None:
        pytest.skip("gofmt is not installed")
    return subprocess.run(["gofmt", str(path)], check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize("version", CONTRACT_VERSIONS)
def test_each_versions_go_package_is_the_command_lines_output(version: str, tmp_path: Path) -> None:
    package = _module(version)
    (made,) = _generate("bindings/go", "go/version", version, tmp_path, "--package", package)
    assert _gofmt(made) == (ROOT / "bindings" / "go" / package / made.name).read_text("utf-8")


@pytest.mark.parametrize(("folder", "where"), [("go/root", "bindings/go"), ("go/jsonwire", "bindings/go/jsonwire")])
def test_the_go_root_files_are_the_command_lines_output(folder: str, where: str, tmp_path: Path) -> None:
    made = _generate("bindings/go", folder, LATEST_VERSION, tmp_path)
    assert made
    for path in made:
        assert _gofmt(path) == (ROOT / where / path.name).read_text("utf-8"), path.name


@pytest.mark.parametrize("language", ["rust", "typescript"])
@pytest.mark.parametrize("version", CONTRACT_VERSIONS)
def test_each_versions_module_is_the_command_lines_output(language: str, version: str, tmp_path: Path) -> None:
    (made,) = _generate(f"bindings/{language}", f"{language}/version", version, tmp_path, "--name", _module(version))
    generated = ROOT / "bindings" / language / "src" / "generated"
    assert made.read_text("utf-8") == (generated / made.name).read_text("utf-8")


@pytest.mark.parametrize("language", ["rust", "typescript"])
def test_the_root_modules_are_the_command_lines_output(language: str, tmp_path: Path) -> None:
    made = _generate(f"bindings/{language}", f"{language}/root", LATEST_VERSION, tmp_path)
    assert made
    generated = ROOT / "bindings" / language / "src" / "generated"
    for path in made:
        assert path.read_text("utf-8") == (generated / path.name).read_text("utf-8"), path.name


@pytest.mark.parametrize("version", CONTRACT_VERSIONS)
def test_each_versions_python_package_is_the_command_lines_output(version: str, tmp_path: Path) -> None:
    made = _generate("bindings/python", "python/version", version, tmp_path, "--name", "__init__")
    assert [p.name for p in made] == ["__init__.py", "models.py", "typeddicts.py"]
    for path in made:
        assert path.read_text("utf-8") == (GENERATED_PYTHON / _module(version) / path.name).read_text("utf-8")


@pytest.mark.parametrize(("folder", "where", "files"), [
    ("python/root", GENERATED_PYTHON, ["__init__.py", "contract_names.py", "failure_kinds.py"]),
    ("python/latest", GENERATED_PYTHON / "latest", ["__init__.py", "models.py", "typeddicts.py"]),
])  # fmt: skip
def test_the_python_package_files_are_the_command_lines_output(
    folder: str, where: Path, files: list[str], tmp_path: Path
) -> None:
    made = _generate("bindings/python", folder, LATEST_VERSION, tmp_path, "--name", "__init__")
    assert [p.name for p in made] == files
    for path in made:
        assert path.read_text("utf-8") == (where / path.name).read_text("utf-8"), path.name


def test_every_generated_typescript_and_python_module_comes_from_generate() -> None:
    """Each carries the header ``verify-contract generate`` writes: none is rendered with a context of its
    own (the bundled schemas, the registry and the schema-rule tables included; the tests above reproduce
    each folder)."""
    modules = [*(ROOT / "bindings" / "typescript" / "src" / "generated").glob("*.ts"), *GENERATED_PYTHON.rglob("*.py")]
    assert len(modules) > 10
    assert [str(p.relative_to(ROOT)) for p in modules if read_header(p.read_text("utf-8")) is None] == []


def test_profile_all_is_for_own_templates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["generate", "go", "--profile", "all", "--out", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "--profile all" in error and "--templates" in error
    assert not list(tmp_path.iterdir())


def test_a_profile_the_version_lacks_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = str(TEMPLATES / "go" / "root")
    assert cli(["generate", "bindings/go", "--templates", folder, "--profile", "every", "--out", str(tmp_path)]) == 2
    assert "has no profile 'every'" in capsys.readouterr().err


def test_the_docs_command_writes_the_committed_go_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/generate.md's command, run as shown from the checkout (its --out moved to a temporary folder)."""
    monkeypatch.chdir(ROOT)
    text = (ROOT / "docs" / "generate.md").read_text("utf-8")
    (block,) = re.findall(r"```sh\n(verify-contract generate bindings/go [^`]*?)```", text)
    argv = shlex.split(block.replace("\\\n", " "))[1:]
    out = argv.index("--out") + 1
    committed = ROOT / argv[out]
    argv[out] = str(tmp_path)
    assert cli(argv) == 0
    (made,) = tmp_path.iterdir()
    assert _gofmt(made) == (committed / made.name).read_text("utf-8")
