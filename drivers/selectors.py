"""Reads of a driver's own settings. The driver app's feed and the dashboard show
dispatch's offers too, so they are ``dispatch.selectors``."""

from __future__ import annotations

from core.encryption import secret_decrypt
from drivers.models import Driver


def driver_maps_key(driver: Driver) -> str:
    """The driver's own maps API key in plain text, for the routing of their jobs only
    (seed 8.5); "" when they have none (or it can no longer be decrypted)."""
    return secret_decrypt(driver.maps_api_key_encrypted)


def driver_maps_key_state(driver: Driver) -> str:
    """What anyone may be shown of the key once saved: whether it is set, and its last four
    characters."""
    key = driver_maps_key(driver)
    if not key:
        return "not set"
    return f"set, ending ...{key[-4:]}" if len(key) >= 12 else "set"
