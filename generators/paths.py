"""Where the sources live and where generated artifacts go, relative to the repository root."""

from __future__ import annotations

from pathlib import Path

# A version's order and its name as an identifier (``v1_2_0``), stated once in the package, used here too.
from verify_contract.codegen._binding import module_name as module_name
from verify_contract.contract import version_key as version_key

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "schema"
VERSIONS_DIR = SCHEMA_DIR / "versions"
REGISTRY_FILE = SCHEMA_DIR / "registry" / "failure_kinds.yaml"
CONTRACT_FACTS_FILE = SCHEMA_DIR / "contract.yaml"
SPEC_FILE = ROOT / "SPEC.md"
PYTHON_PACKAGE = ROOT / "bindings" / "python" / "verify_contract"
PYTHON_GENERATED = PYTHON_PACKAGE / "generated"
MODEL_DIR = PYTHON_GENERATED / "model"
WORDING_DIR = PYTHON_GENERATED / "wording"

VERIFY_RESPONSE_FILE = "verify_response.schema.json"
FAILURE_KINDS_FILE = "failure_kinds.schema.json"


def contract_versions() -> list[str]:
    """Every contract version with a schema directory, oldest first."""
    found = [d.name for d in VERSIONS_DIR.iterdir() if (d / VERIFY_RESPONSE_FILE).is_file()]
    return sorted(found, key=version_key)
