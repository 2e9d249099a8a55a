"""The wheel's build hook compiles the C pre-check with the compiler the user names (CC, LDSHARED, CFLAGS)."""

from __future__ import annotations

import importlib.util
import stat
import sysconfig
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "bindings" / "python" / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cc_replaces_the_compiler_and_keeps_the_link_flags() -> None:
    hook = _hook()
    default = hook.compile_command(Path("x.so"), {})
    named = hook.compile_command(Path("x.so"), {"CC": "my-cc --target=native", "CFLAGS": "-g -Wall"})
    assert named[:2] == ["my-cc", "--target=native"]
    assert named[2:] != [] and "-shared" in named
    assert default[0] != "my-cc" and "-g" not in default
    assert {"-g", "-Wall"} <= set(named)


def test_ldshared_replaces_the_whole_link_command() -> None:
    command = _hook().compile_command(Path("x.so"), {"LDSHARED": "ld-wrapper -shared", "CC": "ignored-cc"})
    assert command[:2] == ["ld-wrapper", "-shared"] and "ignored-cc" not in command


def test_the_named_compiler_really_builds_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CC wrapper that records its call and hands over to the real compiler builds the module."""
    real = (sysconfig.get_config_var("CC") or "cc").split()[0]
    log = tmp_path / "called"
    wrapper = tmp_path / "wrapped-cc"
    wrapper.write_text(f'#!/bin/sh\necho "$@" > {log}\nexec {real} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("CC", str(wrapper))
    monkeypatch.delenv("LDSHARED", raising=False)
    built = _hook().compile_extension(tmp_path)
    assert built is not None and built.exists() and log.exists()
    assert "_fastscan.c" in log.read_text()


def test_a_missing_compiler_is_reported_not_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    monkeypatch.delenv("LDSHARED", raising=False)
    assert _hook().compile_extension(tmp_path) is None
    assert "fast pre-check not built" in capsys.readouterr().err
    assert not any(p.name.startswith("_fastscan") for p in tmp_path.iterdir())
