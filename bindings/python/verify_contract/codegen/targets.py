"""The built-in targets and parameters of ``verify-contract generate`` (no heavy imports: the command
line lists them in its help without loading the renderer)."""

from __future__ import annotations

# The built-in targets, and whether each describes one profile (else: the version's registry only).
TARGETS: dict[str, bool] = {
    "python-pydantic": True,
    "python-typeddict": True,
    "python-dataclass": True,
    "typescript": True,
    "go": True,
    "rust": True,
    "jsonschema": True,
    "constants": False,
}
CONSTANTS_LANGUAGES = ("python", "typescript", "go", "rust")
DEFAULT_PARAMS: dict[str, str] = {"name": "verify_response", "package": "verifyresponse", "lang": "python"}
