"""Contract versions and profiles."""

from __future__ import annotations

from typing import Literal, get_args

from verify_contract.generated import CONTRACT_VERSIONS, LATEST_VERSION

Profile = Literal["core", "gym"]
PROFILES: tuple[Profile, ...] = get_args(Profile)
# The default everywhere (every binding and tool): what a trainer needs. Gym servers ask for "gym".
DEFAULT_PROFILE: Profile = "core"

# The $defs entry of each profile in every version's schema.
PROFILE_DEFINITIONS: dict[Profile, str] = {"core": "VerifyResponse", "gym": "GymVerifyResponse"}

__all__ = [
    "CONTRACT_VERSIONS",
    "DEFAULT_PROFILE",
    "LATEST_VERSION",
    "PROFILES",
    "PROFILE_DEFINITIONS",
    "Profile",
    "check_profile",
    "check_version",
    "version_key",
]


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def check_version(version: str) -> str:
    if version not in CONTRACT_VERSIONS:
        raise ValueError(f"unknown contract version {version!r}; known: {', '.join(CONTRACT_VERSIONS)}")
    return version


def check_profile(profile: str) -> Profile:
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    return profile
