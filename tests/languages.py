"""Whether a test may skip a language whose runner or toolchain is missing.

`make test` (CI) sets VERIFY_CONTRACT_REQUIRE_ALL_LANGUAGES=1, so that a runner that was not built fails instead
of skipping; a developer's quick loop may skip it. Shared by the tests of several folders (cross-language
vectors, the fuzzers), so it lives beside conftest.py, which pytest puts on the path for every folder.
"""

from __future__ import annotations

import os

REQUIRE_ALL = os.environ.get("VERIFY_CONTRACT_REQUIRE_ALL_LANGUAGES") == "1"
