"""Contract versions and profiles (the profiles and the default one are the resolved model's)."""

from __future__ import annotations

from verify_contract.contract._model import contract_model
from verify_contract.generated import CONTRACT_VERSIONS, LATEST_VERSION

Profile = str
"""A profile name: one of ``PROFILES`` (``check_profile`` refuses the others)."""

_LATEST = contract_model(LATEST_VERSION)
PROFILES: tuple[Profile, ...] = tuple(_LATEST.profiles)
DEFAULT_PROFILE: Profile = _LATEST.default_profile

# The $defs entry of each profile in every version's schema.
PROFILE_DEFINITIONS: dict[Profile, str] = {name: profile.definition for name, profile in _LATEST.profiles.items()}

__all__ = [
    "CONTRACT_VERSIONS",
    "DEFAULT_PROFILE",
    "LATEST_VERSION",
    "PROFILES",
    "PROFILE_DEFINITIONS",
    "Profile",
    "check_profile",
    "check_version",
]


def check_version(version: str) -> str:
    if version not in CONTRACT_VERSIONS:
        raise ValueError(f"unknown contract version {version!r}; known: {', '.join(CONTRACT_VERSIONS)}")
    return version


def check_profile(profile: str) -> Profile:
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    return profile
