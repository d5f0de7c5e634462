"""An external identity provider's signing keys: its metadata (RFC 8414, else OpenID Connect
discovery) names `jwks_uri`; the key set found there is cached, refreshed after `max_age`
seconds, and fetched again early when a token names a key id the cache lacks (key rotation),
at most once every `refetch_after` seconds so junk key ids cannot make this server hammer the
provider."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from carimg.store.outage import DependencyUnavailable

logger = logging.getLogger(__name__)
FETCH_TIMEOUT_SECONDS = 5.0
MAX_AGE_SECONDS = 3600.0
REFETCH_AFTER_SECONDS = 10.0


class ProviderUnavailable(DependencyUnavailable):
    """The provider's metadata or keys could not be fetched or used."""


def metadata_urls(issuer: str) -> tuple[str, str]:
    """Where the issuer's metadata lives: RFC 8414 §3.1 (the well-known segment goes between the
    host and the issuer's path) and OpenID Connect discovery (appended to the issuer)."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    rfc8414 = urlunsplit(
        (parts.scheme, parts.netloc, "/.well-known/oauth-authorization-server" + path, "", "")
    )
    return rfc8414, issuer.rstrip("/") + "/.well-known/openid-configuration"


class ProviderKeys:
    """The issuer's current key set, fetched lazily and shared by the process's requests."""

    def __init__(
        self,
        issuer: str,
        now: Callable[[], float],
        *,
        max_age: float = MAX_AGE_SECONDS,
        refetch_after: float = REFETCH_AFTER_SECONDS,
    ) -> None:
        self.issuer = issuer
        self._now = now
        self._max_age = max_age
        self._refetch_after = refetch_after
        self._keys: KeySet | None = None
        self._fetched_at = float("-inf")
        self._lock = asyncio.Lock()

    async def key_set(self, *, missing_kid: bool = False) -> KeySet:
        """The cached key set; fetched when absent or stale, or when the caller did not find
        its key id in the previous answer (and the last fetch is not too recent)."""
        async with self._lock:
            age = self._now() - self._fetched_at
            stale = self._keys is None or age >= self._max_age
            if stale or (missing_kid and age >= self._refetch_after):
                try:
                    self._keys = await self._fetch()
                except ProviderUnavailable:
                    if self._keys is None:
                        raise
                    # Keep the keys we have (rotation is rare, outages happen); try later.
                    logger.warning("keeping %s's cached keys", self.issuer, exc_info=True)
                self._fetched_at = self._now()
            assert self._keys is not None
            return self._keys

    async def _fetch(self) -> KeySet:
        async with httpx.AsyncClient(timeout=FETCH_TIMEOUT_SECONDS) as http:
            metadata = await self._metadata(http)
            jwks_uri = metadata.get("jwks_uri")
            if not isinstance(jwks_uri, str):
                raise ProviderUnavailable(f"The metadata of {self.issuer} names no jwks_uri.")
            document = await _json(http, jwks_uri)
        try:
            return KeySet.import_key_set(document)  # type: ignore[arg-type]
        except (JoseError, KeyError, TypeError, ValueError) as error:
            raise ProviderUnavailable(f"The key set at {jwks_uri} is not usable: {error}") from None

    async def _metadata(self, http: httpx.AsyncClient) -> dict[str, Any]:
        for url in metadata_urls(self.issuer):
            try:
                metadata = await _json(http, url)
            except ProviderUnavailable:
                continue
            if metadata.get("issuer") != self.issuer:  # RFC 8414 §3.3: must be identical
                raise ProviderUnavailable(
                    f"The metadata at {url} names issuer {metadata.get('issuer')!r}, not "
                    f"{self.issuer!r}."
                )
            return metadata
        raise ProviderUnavailable(f"No authorization server metadata found for {self.issuer}.")


async def _json(http: httpx.AsyncClient, url: str) -> dict[str, Any]:
    try:
        response = await http.get(url, headers={"Accept": "application/json"})
        response.raise_for_status()
        document = response.json()
    except (httpx.HTTPError, ValueError) as error:
        raise ProviderUnavailable(f"{url}: {error}") from None
    if not isinstance(document, dict):
        raise ProviderUnavailable(f"{url} did not answer with a JSON object.")
    return document
