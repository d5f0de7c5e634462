"""Partner-signed legacy embed URLs (`/images/car.png?…&exp=…&sig=…`): free to load until `exp`.

The signature algorithm lives once, in `carimg.domain.signing` (a module of the standard library
only); this wrapper speaks the SDK's argument names.
"""

from __future__ import annotations

from carimg.client._config import resolve_base_url
from carimg.domain.signing import signed_embed_url


def sign_embed_url(
    secret: str,
    make: str,
    model: str,
    year: int,
    *,
    view: str | None = None,
    color: str | None = None,
    finish: str | None = None,
    width: int | None = None,
    height: int | None = None,
    size: str | None = None,
    format: str | None = None,
    expires_in: int = 86400,
    base_url: str | None = None,
    now: float | None = None,
) -> str:
    """A `/images/car.png` URL signed with the partner `secret`, valid `expires_in` seconds
    (at most 30 days from `now`, default the current time). `base_url` defaults like the
    clients' (`CAR_IMAGE_API_URL`, …)."""
    params: dict[str, str | int] = {"brand": make, "model": model, "year": year}
    for name, value in (
        ("view", view),
        ("color", color),
        ("finish", finish),
        ("w", width),
        ("h", height),
        ("size", size),
        ("format", format),
    ):
        if value is not None:
            params[name] = value
    return signed_embed_url(
        resolve_base_url(base_url), secret, params, expires_in=expires_in, now=now
    )
