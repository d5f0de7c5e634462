"""Secrets the service hands out are unguessable: at least 128 random bits from `secrets`, in a
URL-safe alphabet; device user codes follow RFC 8628 §6.1 (short, unambiguous, rate limited)."""

from __future__ import annotations

import math
import re
import secrets

import pytest

from carimg.domain import device, keys, oauth

URLSAFE = re.compile(r"[A-Za-z0-9_-]+")
MIN_BITS = 128


def _bits(body: str, alphabet_size: int = 64) -> float:
    return len(body) * math.log2(alphabet_size)


def test_api_keys_carry_256_random_bits() -> None:
    made = {keys.new_key() for _ in range(200)}
    assert len(made) == 200
    for key in made:
        assert keys.is_well_formed(key)
        body = key.removeprefix(keys.KEY_PREFIX)
        assert URLSAFE.fullmatch(body) and _bits(body) >= 256


def test_display_prefixes_show_too_little_of_a_key_to_guess_it() -> None:
    key = keys.new_key()
    shown = keys.display_prefix(key).removeprefix(keys.KEY_PREFIX)
    hidden = key.removeprefix(keys.display_prefix(key))
    assert len(shown) <= 8
    assert _bits(hidden) >= MIN_BITS  # what is never shown still carries ≥128 bits


@pytest.mark.parametrize(
    ("module", "pattern"),
    [
        # each issued secret: `secrets.token_urlsafe(32)` (256 bits) at its point of issue
        ("carimg/domain/keys.py", r"KEY_PREFIX \+ secrets\.token_urlsafe\(32\)"),
        ("carimg/domain/oauth.py", r"CODE_PREFIX \+ secrets\.token_urlsafe\(32\)"),
        ("carimg/domain/oauth.py", r"ACCESS_TOKEN_PREFIX \+ secrets\.token_urlsafe\(32\)"),
        ("carimg/domain/oauth.py", r"REFRESH_TOKEN_PREFIX \+ secrets\.token_urlsafe\(32\)"),
        ("carimg/domain/oauth.py", r"secret = secrets\.token_urlsafe\(32\)"),  # client secret
        ("carimg/domain/deliveryurls.py", r"tokens = \[secrets\.token_urlsafe\(32\)"),
        ("carimg/domain/device.py", r"device_code = secrets\.token_urlsafe\(32\)"),
        ("carimg/domain/web_accounts.py", r"token = secrets\.token_urlsafe\(32\)"),
    ],
)
def test_issued_secrets_come_from_the_secrets_module_with_256_bits(
    module: str, pattern: str
) -> None:
    import carimg

    source = next(iter(carimg.__path__)) + "/" + module.removeprefix("carimg/")
    with open(source, encoding="utf-8") as file:
        assert re.search(pattern, file.read()), f"{module}: {pattern}"
    assert _bits(secrets.token_urlsafe(32)) >= 256


def test_no_secret_is_made_with_the_random_module() -> None:
    """`random` is predictable; only jitter and fault injection may use it."""
    import pathlib

    import carimg

    root = pathlib.Path(next(iter(carimg.__path__)))
    users = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if re.search(r"^\s*(import random|from random import)", path.read_text(), re.M)
    )
    assert users == ["client/_operation.py", "queue/_worker.py"]


def test_device_user_codes_follow_rfc_8628() -> None:
    """RFC 8628 §6.1: 8 characters of base-20 consonants give 34.5 bits, enough with rate
    limits and a short lifetime; no vowels (no words), no look-alike characters."""
    alphabet = device.USER_CODE_ALPHABET
    assert len(set(alphabet)) == len(alphabet) >= 20
    assert not set(alphabet) & set("AEIOU01lI")
    assert device.USER_CODE_LENGTH >= 8
    assert device.USER_CODE_LENGTH * math.log2(len(alphabet)) >= 34


def test_oauth_tokens_are_recognisable_by_prefix_only() -> None:
    """The prefixes the log scrubber keeps: the secret part follows them."""
    assert oauth.ACCESS_TOKEN_PREFIX == "cat_"
    assert oauth.REFRESH_TOKEN_PREFIX == "crt_"
    assert oauth.CODE_PREFIX == "cac_"
