"""Every binding installs the way its ecosystem expects, into a fresh project outside this repository,
and the examples of its README run there.

Python: sdist and wheel from `python -m build` (the wheel built from the sdist), installed into a fresh
virtual environment. TypeScript: the tarball of `npm pack`, installed with `npm install` and type-checked.
Go: the module used through a `replace` directive and through a `go.work` path. Rust: the `.crate` of
`cargo package`, used as a path dependency. Registries are reached only through each tool's cache or
its ordinary client.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from languages import REQUIRE_ALL

from build_dirs import cargo_lock
from markdown_blocks import ROOT, blocks

BINDINGS = ROOT / "bindings"
VERSION = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)[1]  # type: ignore[index]


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        if REQUIRE_ALL:
            pytest.fail(f"{name} is not installed; `make test` needs every toolchain")
        pytest.skip(f"{name} is not installed")
    return found


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 600) -> str:
    result = subprocess.run(
        command, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, f"{' '.join(command)} failed in {cwd}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def _fenced(path: Path, language: str) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def test_license_is_the_full_apache_text_in_every_package() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text and "END OF TERMS AND CONDITIONS" in text
    assert len(text) > 10_000
    for binding in ("typescript", "go", "rust"):  # each package ships its own copy, byte for byte the same
        assert (BINDINGS / binding / "LICENSE").read_text(encoding="utf-8") == text


def test_every_package_has_the_same_version() -> None:
    """docs/release.md: one package version for the four packages (the Go module's comes from its tag)."""
    npm = json.loads((BINDINGS / "typescript" / "package.json").read_text())["version"]
    crate = re.search(r'^version = "([^"]+)"', (BINDINGS / "rust" / "Cargo.toml").read_text(), re.MULTILINE)
    assert crate is not None and npm == crate[1] == VERSION


def test_python_wheel_and_sdist_install_outside_the_repository(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    # --no-isolation: hatchling is pinned in the test extra, so no build environment is downloaded.
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(ROOT)], cwd=tmp_path)
    sdists = list(dist.glob("verify_contract-*.tar.gz"))
    wheels = list(dist.glob("verify_contract-*.whl"))  # built from the sdist: proves the sdist is complete
    assert len(sdists) == 1 and len(wheels) == 1
    with tarfile.open(sdists[0]) as archive:
        names = archive.getnames()
    assert any(n.endswith("/LICENSE") for n in names) and any("/vectors/" in n for n in names)
    assert not [n for n in names if n.endswith((".so", ".pyd"))]  # sources only: the wheel compiles its own
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    python = str(venv / "bin" / "python")
    run([python, "-m", "pip", "install", "--quiet", str(wheels[0]), "pytest"], cwd=tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    where = run([python, "-c", "import verify_contract; print(verify_contract.__file__)"], cwd=project)
    assert str(ROOT) not in where and str(venv) in where
    version = run([str(venv / "bin" / "verify-contract"), "--version"], cwd=project)
    assert version.startswith(f"verify-contract {VERSION} ")
    (project / "rows.jsonl").write_text('{"reward": 1}\n{"reward": 0, "mask_sample": true}\n')
    assert "2 valid" in run([str(venv / "bin" / "verify-contract"), "check", "rows.jsonl"], cwd=project)
    # The installed package's fast path: the compiled pre-check, the text keys and the generated wording
    # table (without it every contract defect would go to jsonschema: right, but slow), and --jobs.
    (project / "bad.jsonl").write_text('{"reward": "1"}\n{"reward": 1,\n{"reward": NaN}\n{"reward": 1}\n' * 3)
    probe = (
        "import contextlib, io, json, sys\n"
        "from verify_contract.cli import main\n"
        "for jobs in ('1', '2'):\n"
        "    with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "        code = main(['check', '--format', 'json', '--jobs', jobs, 'bad.jsonl'])\n"
        "    report = json.loads(out.getvalue())\n"
        "    print(code, report['precheck'], report['valid'], report['invalid'])\n"
        "print('jsonschema' in sys.modules)\n"
    )
    assert run([python, "-c", probe], cwd=project).splitlines() == ["1 compiled 3 9", "1 compiled 3 9", "False"]
    # Every command's help works without the optional extras (probe's aiohttp, the budget's prometheus-client and
    # matplotlib, fsspec, Ray): they are imported when a run asks for them, not to build the parser.
    for command in ("probe", "check", "generate", "diff", "upgrade", "conformance"):
        assert "usage:" in run([str(venv / "bin" / "verify-contract"), command, "--help"], cwd=project)
    # README's examples include a FastAPI server behind the middleware, posted to through httpx's ASGI
    # transport: what a reader of them installs.
    run([python, "-m", "pip", "install", "--quiet", f"{wheels[0]}[probe]", "fastapi", "httpx"], cwd=tmp_path)
    for index, block in enumerate(blocks("README.md")):
        if "def test_" in block.code:  # the pytest plugin's example, through the installed entry point
            (project / f"test_readme_{index}.py").write_text(block.code)
        else:
            (project / f"readme_{index}.py").write_text(block.code)
            run([python, f"readme_{index}.py"], cwd=project)
    assert " passed" in run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project)


def test_npm_tarball_installs_with_compiled_code_and_types(tmp_path: Path) -> None:
    npm = _tool("npm")
    package = BINDINGS / "typescript"
    if not (package / "node_modules").is_dir():
        run([npm, "ci", "--no-audit", "--no-fund"], cwd=package)
    # Pack a clean checkout of the package (no dist/ yet): `prepare` must compile it into the tarball.
    clean = tmp_path / "checkout"
    clean.mkdir()
    for name in ("src", "package.json", "package-lock.json", "tsconfig.json", "README.md", "LICENSE"):
        copy = shutil.copytree if (package / name).is_dir() else shutil.copy
        copy(package / name, clean / name)
    (clean / "node_modules").symlink_to(package / "node_modules")  # the pinned compiler, not a download
    run([npm, "pack", "--pack-destination", str(tmp_path)], cwd=clean)
    (tarball,) = tmp_path.glob("verify-contract-*.tgz")
    with tarfile.open(tarball) as archive:
        names = set(archive.getnames())
    assert {"package/dist/index.js", "package/dist/index.d.ts", "package/LICENSE"} <= names
    assert not any(n.startswith("package/src/") or n.endswith(".map") for n in names)
    project = tmp_path / "project"
    project.mkdir()
    (project / "package.json").write_text('{"name": "consumer", "private": true, "type": "module"}\n')
    typescript = re.search(r'"typescript": "([^"]+)"', (package / "package.json").read_text())[1]  # type: ignore[index]
    run([npm, "install", "--no-audit", "--no-fund", str(tarball), f"typescript@{typescript}"], cwd=project)
    (example,) = _fenced(package / "README.md", "ts")
    (project / "example.ts").write_text(example + "\nconsole.log(text);\n")
    (project / "tsconfig.json").write_text(
        '{"compilerOptions": {"target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",'
        ' "strict": true, "exactOptionalPropertyTypes": true, "noEmitOnError": true, "types": []},'
        ' "files": ["example.ts"]}\n'
    )
    run([str(project / "node_modules" / ".bin" / "tsc"), "-p", "."], cwd=project)  # the shipped .d.ts types
    out = run([_tool("node"), "example.js"], cwd=project)
    assert '"responses_create_params":{"input":[]}' in out


GO_MODULE = "github.com/verify-contract/verify-contract/bindings/go"


@pytest.mark.parametrize("how", ["replace", "workspace"])
def test_go_module_is_usable_by_replace_and_by_path(tmp_path: Path, how: str) -> None:
    go = _tool("go")
    assert (BINDINGS / "go" / "go.mod").read_text().startswith(f"module {GO_MODULE}\n")
    programs = [code for code in _fenced(BINDINGS / "go" / "README.md", "go") if code.startswith("package main")]
    assert programs, "bindings/go/README.md has no complete program"
    module = tmp_path / "consumer"
    module.mkdir()
    go_mod = "module example.com/consumer\n\ngo 1.24\n"
    if how == "replace":
        go_mod += f"\nrequire {GO_MODULE} v0.1.0\n\nreplace {GO_MODULE} => {BINDINGS / 'go'}\n"
    else:
        (tmp_path / "go.work").write_text(f"go 1.24\n\nuse (\n\t./consumer\n\t{BINDINGS / 'go'}\n)\n")
    (module / "go.mod").write_text(go_mod)
    shutil.copy(BINDINGS / "go" / "go.sum", module / "go.sum")  # the binding's pinned dependencies
    for index, program in enumerate(programs):
        directory = module / f"example{index}"
        directory.mkdir()
        (directory / "main.go").write_text(program)
    env = {"GOFLAGS": "-mod=mod"} if how == "replace" else {}  # workspaces take no -mod=mod
    for index in range(len(programs)):
        out = run([go, "run", f"./example{index}"], cwd=module, env=env)
        assert out.strip(), f"example {index} printed nothing"


def test_rust_crate_packages_and_builds_as_a_dependency(tmp_path: Path) -> None:
    cargo = _tool("cargo")
    crate = BINDINGS / "rust"
    manifest = (crate / "Cargo.toml").read_text()
    assert 'version = "=' not in manifest  # semver-compatible: a consumer's own pins resolve
    assert "publish = false" not in manifest
    # The shared target directory (tests/build_dirs.py), with the binding's own build: dependencies compile once.
    # Held while packaging: the verification build writes programs another test builds and runs.
    with cargo_lock() as target:
        env = {"CARGO_TARGET_DIR": str(target)}
        run([cargo, "package", "--allow-dirty", "--offline"], cwd=crate, env=env)  # builds the packaged crate
        (packaged,) = (target / "package").glob(f"verify-contract-{VERSION}.crate")
        with tarfile.open(packaged) as archive:
            archive.extractall(tmp_path / "crates", filter="data")
    unpacked = tmp_path / "crates" / f"verify-contract-{VERSION}"
    assert (unpacked / "LICENSE").is_file() and (unpacked / "src" / "generated").is_dir()
    project = tmp_path / "consumer"
    (project / "src").mkdir(parents=True)
    (project / "Cargo.toml").write_text(
        '[package]\nname = "consumer"\nversion = "0.0.0"\nedition = "2021"\n\n'
        f'[dependencies]\nverify-contract = {{ path = "{unpacked}" }}\nserde_json = "1"\n'
    )
    shutil.copy(crate / "Cargo.lock", project / "Cargo.lock")  # the versions the binding was tested with
    examples = _fenced(crate / "README.md", "rust")
    assert len(examples) >= 2
    calls = []
    for index, code in enumerate(examples):
        body = code if "fn main()" in code else f"fn main() {{\n{code}}}\n"  # as rustdoc wraps a doctest
        (project / "src" / f"example{index}.rs").write_text(body.replace("fn main()", "pub fn main()", 1))
        fails = "fn main() -> Result" in body  # an Err must fail the run, not vanish
        check = '.expect("the example returned an error")' if fails else ""
        calls.append(f"    example{index}::main(){check};\n")
        calls.append(f'    println!("example{index} ok");\n')
    (project / "src" / "main.rs").write_text(
        "".join(f"mod example{index};\n" for index in range(len(examples))) + "fn main() {\n" + "".join(calls) + "}\n"
    )
    functions = [f"example{index}" for index in range(len(examples))]
    out = run([cargo, "run", "--offline", "--quiet"], cwd=project, env=env)
    assert all(f"{name} ok" in out for name in functions)
