"""The pydantic models of the latest contract version.

These names are public API: a schema change that renames one breaks importers, and
``tests/bindings/test_bindings.py`` pins them. Which version is the latest, and its names, are generated
(``verify_contract.generated.latest``): a new version needs no edit here.
"""

from verify_contract.generated.latest.models import *  # noqa: F403
from verify_contract.generated.latest.models import __all__ as __all__
