"""One run's contract, resolved once at the top: the version (checked), its resolved model and the profile
(checked). The layers below receive this object instead of a version string each would resolve again."""

from __future__ import annotations

from verify_contract.contract._model import ResolvedModel, contract_model
from verify_contract.contract._versions import Profile, check_profile, check_version
from verify_contract.records import FrozenRecord

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Callable


class Contract(FrozenRecord):
    """A checked version and profile with the version's model. Equal, hashed and pickled by the two names
    (``--jobs`` and Ray send it to workers, which resolve it again from their own loaded models)."""

    __slots__ = ("version", "profile", "model")  # noqa: RUF023 (the constructor's order)
    version: str
    profile: Profile
    model: ResolvedModel

    def __init__(self, version: str, profile: Profile, model: ResolvedModel) -> None:
        self._freeze(version, profile, model)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Contract:
            return NotImplemented
        return self.version == other.version and self.profile == other.profile

    def __hash__(self) -> int:
        return hash((self.version, self.profile))

    def __reduce__(self) -> tuple[Callable[[str, str], Contract], tuple[str, str]]:  # type: ignore[override]
        return resolve_contract, (self.version, self.profile)

    def __repr__(self) -> str:
        return f"Contract({self.version!r}, {self.profile!r})"


_RESOLVED: dict[tuple[str, str], Contract] = {}


def resolve_contract(version: str, profile: str) -> Contract:
    """The contract of a version and profile (``ValueError`` naming the known ones for either unknown)."""
    resolved = _RESOLVED.get((version, profile))
    if resolved is None:
        model = contract_model(check_version(version))
        resolved = _RESOLVED[(version, profile)] = Contract(version, check_profile(profile), model)
    return resolved
