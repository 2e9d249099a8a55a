"""The TypedDicts of the latest contract version (static types; validate through ``typeddict_adapter``).

Which version is the latest, and its names, are generated (``verify_contract.generated.latest``)."""

from verify_contract.generated.latest.typeddicts import *  # noqa: F403
from verify_contract.generated.latest.typeddicts import __all__ as __all__
