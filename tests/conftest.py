from __future__ import annotations

import os
from pathlib import Path

import pytest

from verify_contract.vectors import Vector, load_vectors

# A Ray that a test starts (tests/check/test_check_ray.py, README's check_dataset block) advertises and binds
# 127.0.0.1 only: Ray's own switch for a one-machine cluster (without it, its servers listen on every
# interface and advertise the machine's address). Child processes (a CLI joining the cluster) inherit it.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

VECTORS: list[Vector] = load_vectors()


def vector_ids(vectors: list[Vector]) -> list[str]:
    return [v.id for v in vectors]


# What each test file is, in the markers pyproject.toml declares: `make check` leaves out the tests that need a
# language toolchain, the fuzzers, the real Gym, the drills and multi-second services (`make test` runs them
# all). A file of one kind is marked here; a file of mixed kinds marks its own tests.
TESTS = Path(__file__).resolve().parent
FILE_MARKERS: dict[str, tuple[str, ...]] = {
    "test_budget_attacks.py": ("slow",),
    "test_build_hook.py": ("toolchain",),
    "test_change_drill.py": ("drill", "change_drill"),
    "test_check_ray.py": ("slow",),
    "test_check_remote.py": ("slow",),
    "test_check_s3_compiled.py": ("toolchain", "slow"),
    "test_object_integrity.py": ("slow",),
    "test_follow_io.py": ("slow",),
    "test_stop_vectors.py": ("slow",),
    "test_cross_language.py": ("toolchain",),
    "test_demo_install.py": ("slow",),
    "test_docs_site.py": ("slow",),
    "test_docs_site_browser.py": ("browser", "slow"),
    "test_fastscan_fuzz.py": ("fuzz", "toolchain"),
    "test_fuzz_differential.py": ("fuzz", "toolchain"),
    "test_generate_toolchains.py": ("toolchain",),
    "test_middleware_bench.py": ("slow",),
    "test_packages.py": ("toolchain", "slow"),
    "test_probe_bounds.py": ("slow",),
    "test_release_drill.py": ("drill", "release_drill"),
    "gym_oracle": ("oracle", "slow"),
    "test_real_trainers.py": ("trainers", "slow"),
}


def _marked_file(item: pytest.Item) -> bool:
    return any(part in FILE_MARKERS for part in item.path.relative_to(TESTS).parts)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for part in item.path.relative_to(TESTS).parts:
            for name in FILE_MARKERS.get(part, ()):
                item.add_marker(name)
    # The marked files hold the long tests (builds, drills, fuzzers, the Gym venvs): run first, under
    # pytest-xdist's --dist loadfile they start at once on every worker and the short files fill in around them,
    # instead of one long file starting last and leaving the other workers idle (longest first).
    items.sort(key=lambda item: not _marked_file(item))
