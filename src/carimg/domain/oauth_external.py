"""Access tokens from an external identity provider (`CARIMG_OAUTH_ISSUER`).

A token is accepted when it is a JWT access token (RFC 9068: `typ` at+jwt) signed by a key of
the provider's JWKS with an asymmetric algorithm, issued by exactly that issuer, for this
resource (`aud`), and not expired. The account is the carimg account whose e-mail address the
token carries (claim `email`, or the one `CARIMG_OAUTH_ACCOUNT_CLAIM` names).

The app the token was issued to (`client_id`) gets a connection like those of carimg's own
authorization server: it is listed on the connected-apps page, holds only the connectable scopes
the token grants (never billing:purchase), and revoking it there refuses every token issued
before the revocation, so the person has to connect the app again through the provider.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any
from urllib.parse import urlsplit

from joserfc import jwt
from joserfc.errors import ExpiredTokenError, InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet
from joserfc.jwt import JWTClaimsRegistry, Token

from carimg.config import Settings
from carimg.domain.clock import Clock
from carimg.domain.errors import Forbidden, Unauthenticated
from carimg.domain.keys import ACCOUNT_READ, BILLING_WRITE, IMAGES_READ
from carimg.domain.outages import answering
from carimg.store.accounts import AccountStore
from carimg.store.jwks import ProviderKeys
from carimg.store.oauth import OAuthClient, OAuthStore
from carimg.store.records import Account, Principal

# Asymmetric only: an HMAC "key" would be the provider's public key, which anyone can read.
ALGORITHMS = (
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA",
)  # fmt: skip
ACCESS_TOKEN_TYPES = ("at+jwt", "application/at+jwt")  # RFC 9068 §4
LEEWAY_SECONDS = 30  # clock skew between the provider and this server
CONNECTABLE_SCOPES = (IMAGES_READ, ACCOUNT_READ, BILLING_WRITE)
_JWT = re.compile(r"eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")


def looks_like_jwt(credential: str) -> bool:
    """A compact JWS (three base64url parts, a JSON header): never a `cimg_` key or `cat_`
    token."""
    return _JWT.fullmatch(credential.strip()) is not None


def granted_scopes(claims: dict[str, Any]) -> tuple[str, ...]:
    """The connectable scopes a token grants: `scope` (RFC 9068 §2.2.3, space-separated), or
    the `scp` list some providers use."""
    scope = claims.get("scope", claims.get("scp", ""))
    named = set(scope.split()) if isinstance(scope, str) else set(scope or ())
    return tuple(s for s in CONNECTABLE_SCOPES if s in named)


class ExternalTokens:
    """Checks the provider's access tokens and finds the principal behind each."""

    def __init__(
        self,
        store: OAuthStore,
        accounts: AccountStore,
        settings: Settings,
        clock: Clock,
        resource: str,
    ) -> None:
        assert settings.oauth_issuer, "only with an external issuer"
        self.issuer = settings.oauth_issuer
        self.audience = settings.oauth_audience or resource
        self._claim = settings.oauth_account_claim
        self._base_url = settings.base_url
        self._store = store
        self._accounts = accounts
        self._clock = clock
        self._keys = ProviderKeys(self.issuer, clock.time)

    async def authenticate(self, token: str) -> Principal:
        claims = await self._claims(token.strip())
        account = await self._account(claims)
        scopes = granted_scopes(claims)
        if not scopes:
            raise Forbidden(
                f"The access token grants none of {', '.join(CONNECTABLE_SCOPES)}; connect the "
                "app again and allow them.",
                code="insufficient_scope",
            )
        return await self._connection(account, self._client(claims), scopes, claims["iat"])

    async def _claims(self, token: str) -> dict[str, Any]:
        """The claims of a token whose signature, type, issuer, audience and times check out."""
        try:
            decoded = await self._decode(token)
            if str(decoded.header.get("typ", "")).lower() not in ACCESS_TOKEN_TYPES:
                raise Unauthenticated(
                    "The token is not an access token (RFC 9068 typ at+jwt); send the access "
                    "token, not an ID token.",
                    invalid=True,
                )
            JWTClaimsRegistry(
                now=int(self._clock.time()),
                leeway=LEEWAY_SECONDS,
                iss={"essential": True, "value": self.issuer},
                aud={"essential": True, "value": self.audience},
                sub={"essential": True},
                exp={"essential": True},
                iat={"essential": True},
            ).validate(decoded.claims)
        except ExpiredTokenError:
            raise Unauthenticated(
                f"The access token expired; the app gets a new one from {self.issuer}.",
                invalid=True,
            ) from None
        except JoseError as error:
            raise Unauthenticated(
                f"The access token is not valid here ({error.description or error.error}). It "
                f"must come from {self.issuer} for the audience {self.audience}.",
                invalid=True,
            ) from None
        return decoded.claims

    async def _decode(self, token: str) -> Token:
        try:
            return jwt.decode(token, await self._key_set(), algorithms=ALGORITHMS)
        except InvalidKeyIdError:  # the provider may have rotated its keys: look again
            return jwt.decode(token, await self._key_set(missing_kid=True), algorithms=ALGORITHMS)

    async def _key_set(self, *, missing_kid: bool = False) -> KeySet:
        with answering():
            return await self._keys.key_set(missing_kid=missing_kid)

    async def _account(self, claims: dict[str, Any]) -> Account:
        address = claims.get(self._claim)
        if not isinstance(address, str) or "@" not in address:
            raise Forbidden(
                f"The access token carries no e-mail address in its '{self._claim}' claim, so "
                "it names no carimg account; the identity provider must include it.",
                code="no_account",
            )
        if claims.get("email_verified") is False:
            raise Forbidden(
                f"The identity provider has not verified {address}; verify it there first.",
                code="email_unverified",
            )
        account = await self._accounts.by_email(address)
        if account is None:
            raise Forbidden(
                f"No carimg account uses {address}. Sign up at {self._base_url}/signup with that "
                "address, then use the app again.",
                code="no_account",
            )
        if account.status == "suspended":
            raise Forbidden(
                "This account is suspended; contact the operator.", code="account_suspended"
            )
        return account

    def _client(self, claims: dict[str, Any]) -> OAuthClient:
        """The app, as a client of this server: one per provider and provider client id."""
        client_id = claims.get("client_id") or claims.get("azp")
        if not isinstance(client_id, str):
            raise Unauthenticated(
                "The access token names no client_id (RFC 9068 §2.2).", invalid=True
            )
        digest = hashlib.sha256(f"{self.issuer} {client_id}".encode()).hexdigest()
        return OAuthClient(
            id=f"ext_{digest[:40]}",
            name=f"{client_id} (via {urlsplit(self.issuer).netloc})"[:200],
            secret_hash=None,
            redirect_uris=(),
            metadata={"issuer": self.issuer, "client_id": client_id},
            created_at=self._clock.now(),
        )

    async def _connection(
        self, account: Account, client: OAuthClient, scopes: tuple[str, ...], issued_at: float
    ) -> Principal:
        """The app's connection for this account (made, or given the token's scopes, when
        needed); tokens issued before the person revoked it are refused."""
        found = await self._store.connections_to(account.id, client.id)
        revoked = found.last_revoked_at
        if revoked is not None and issued_at <= revoked.timestamp():
            raise Unauthenticated(
                "This app's connection was revoked on the dashboard; connect it again (the app "
                "asks you to sign in).",
                invalid=True,
            )
        principal = found.active
        now = self._clock.now()
        if principal is None or principal.key.scopes != scopes:
            await self._store.ensure_client(client)
            await self._store.connect(
                f"con_{uuid.uuid4().hex[:20]}", account.id, client, scopes, now
            )
            principal = (await self._store.connections_to(account.id, client.id)).active
            assert principal is not None
        await self._accounts.touch_key(principal.key.id, now)  # "last used"
        return principal
