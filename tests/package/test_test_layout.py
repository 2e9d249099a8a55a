"""The tests' own layout: folders that mirror the package, each test file runnable alone.

pytest puts a test file's folder and tests/ (conftest.py's) on the path, nothing else: a test module that
imports a test module of another folder works in a whole run (where that folder was collected first) and fails
to collect when its file is run alone. Shared helpers live at tests/ (``languages``, ``live_servers``, ...).
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _test_files() -> list[Path]:
    return sorted(TESTS.rglob("test_*.py"))


def _imported_test_modules(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found.extend((node.lineno, name) for name in names if name.split(".")[0].startswith("test_"))
    return found


def cross_folder_imports(files: list[Path], root: Path = TESTS) -> list[str]:
    where = {path.stem: path.parent for path in files}
    problems = []
    for path in files:
        for line, name in _imported_test_modules(path):
            home = where.get(name.split(".")[0])
            if home != path.parent:
                problems.append(f"{path.relative_to(root).as_posix()}:{line}: imports {name} from another folder")
    return problems


def test_no_test_file_is_left_at_the_top() -> None:
    assert [p.name for p in TESTS.glob("test_*.py")] == []


def test_test_file_names_are_unique() -> None:
    stems = [path.stem for path in _test_files()]
    assert sorted({s for s in stems if stems.count(s) > 1}) == []  # rootdir imports: one module per name


def test_no_test_file_imports_another_folders_test_module() -> None:
    files = _test_files()
    assert len(files) > 50
    assert cross_folder_imports(files) == []


def test_a_cross_folder_import_is_caught(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "test_shared.py").write_text("VALUE = 1\n")
    (tmp_path / "a" / "test_same.py").write_text("from test_shared import VALUE\n")
    (tmp_path / "b" / "test_other.py").write_text("from test_shared import VALUE\n")
    files = sorted(tmp_path.rglob("test_*.py"))
    assert cross_folder_imports(files, tmp_path) == ["b/test_other.py:1: imports test_shared from another folder"]
