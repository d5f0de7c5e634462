"""OAuth 2.1 for connected apps: the authorization server inside carimg.

Dynamic client registration (RFC 7591), the authorization code grant with PKCE (S256 only) and
exact redirect URI matching, short-lived access tokens with rotating refresh tokens, revocation
(RFC 7009), and the metadata documents (RFC 8414, RFC 9728). Authlib supplies the protocol
pieces: client metadata validation, the S256 comparison and the OAuth error types, whose
`error` and `error_description` the token endpoints answer with.

A connected app holds images:read and account:read, and billing:write only when the consent
page listed it and the person kept it; never billing:purchase, never a portal.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from datetime import timedelta
from typing import Any
from urllib.parse import quote, urlsplit

from authlib.common.urls import add_params_to_uri
from authlib.oauth2.rfc6749 import (
    InvalidClientError,
    InvalidGrantError,
    InvalidRequestError,
    InvalidScopeError,
    UnsupportedGrantTypeError,
    UnsupportedResponseTypeError,
)
from authlib.oauth2.rfc7591 import ClientMetadataClaims
from authlib.oauth2.rfc7636.challenge import (
    CODE_CHALLENGE_PATTERN,
    CODE_VERIFIER_PATTERN,
    compare_s256_code_challenge,
)

from carimg.config import Settings
from carimg.domain.clock import Clock
from carimg.domain.errors import Forbidden, InvalidParameter, NotFound, Unauthenticated
from carimg.domain.keys import ACCOUNT_READ, BILLING_WRITE, IMAGES_READ
from carimg.domain.oauth_external import CONNECTABLE_SCOPES, ExternalTokens, looks_like_jwt
from carimg.domain.signing import sign_value, unsign_value
from carimg.store.accounts import AccountStore
from carimg.store.oauth import Connection, NewToken, OAuthClient, OAuthStore
from carimg.store.records import Account, Principal

ACCESS_TOKEN_PREFIX = "cat_"
REFRESH_TOKEN_PREFIX = "crt_"
CODE_PREFIX = "cac_"
DEFAULT_SCOPES = (IMAGES_READ, ACCOUNT_READ)
SCOPE_TEXT = {
    IMAGES_READ: "Fetch images and create signed image URLs (each costs credits from your balance)",
    ACCOUNT_READ: "Read your balance, usage and pricing",
    BILLING_WRITE: "Create checkout links for credit packs (you still pay yourself)",
}
CODE_LIFETIME = timedelta(minutes=5)
REQUEST_LIFETIME_SECONDS = 15 * 60  # the consent page must be answered within this
REFRESH_LIFETIME = timedelta(days=30)
MCP_RESOURCE_PATH = "/api/mcp"
REGISTRATIONS_PER_MINUTE = 20  # per address: hosts register once per install
TOKEN_REQUESTS_PER_MINUTE = 60  # per address: exchanges and refreshes
REVOCATIONS_PER_MINUTE = 60
_CONSENT_PURPOSE = "oauth-consent"
_UNSAFE_SCHEMES = {"javascript", "data", "file", "vbscript", "about", "blob"}
_LOOPBACK = {"localhost", "127.0.0.1", "::1"}
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def is_access_token(credential: str) -> bool:
    """Ours (`cat_…`) or, when an external provider is configured, its JWTs."""
    return credential.startswith(ACCESS_TOKEN_PREFIX) or looks_like_jwt(credential)


def redirect_host(uri: str) -> str:
    """What the consent page shows as where the browser goes back to."""
    parts = urlsplit(uri)
    return parts.netloc or f"{parts.scheme}:"


def check_redirect_uri(uri: str) -> None:
    """https anywhere; http only to this machine (RFC 8252 loopback); private-use schemes for
    native apps; never a fragment or a scheme that runs code."""
    try:
        parts = urlsplit(uri)
    except ValueError:  # an unclosed "[" in the host
        raise InvalidRedirectUri(f"'{uri}' is not a URI.") from None
    scheme = parts.scheme.lower()
    if not _SCHEME.fullmatch(scheme) or scheme in _UNSAFE_SCHEMES or "#" in uri:
        raise InvalidRedirectUri(f"'{uri}' is not an acceptable redirect URI.")
    if "@" in parts.netloc:  # "https://app.example@evil.example/" reads as one host, is another
        raise InvalidRedirectUri(f"'{uri}' carries user information before its host.")
    if scheme == "http" and (parts.hostname or "") not in _LOOPBACK:
        raise InvalidRedirectUri(f"'{uri}': plain http is allowed only to localhost.")
    if scheme in ("http", "https") and not parts.hostname:
        raise InvalidRedirectUri(f"'{uri}' names no host.")


def error_text(text: str) -> str:
    """`text` as an error_description may carry it: RFC 6749 allows printable ASCII without `"`
    and `\\` (authlib raises ValueError on anything else); other characters are
    percent-encoded, so a client's own value can be quoted back to it."""
    return "".join(c if " " <= c <= "~" and c not in '"\\' else quote(c, safe="") for c in text)


class _MetadataError(InvalidRequestError):  # type: ignore[misc]
    """A registration error whose description quotes what the client sent."""

    def __init__(self, description: str, **kwargs: Any) -> None:
        super().__init__(error_text(description), **kwargs)


class InvalidRedirectUri(_MetadataError):
    error = "invalid_redirect_uri"


class InvalidClientMetadata(_MetadataError):
    error = "invalid_client_metadata"


@dataclass(frozen=True, slots=True)
class AuthorizationRequest:
    """A validated authorization request, carried to the consent page signed."""

    client_id: str
    client_name: str
    redirect_uri: str
    scopes: tuple[str, ...]
    state: str | None
    code_challenge: str
    resource: str | None

    @property
    def redirect_host(self) -> str:
        return redirect_host(self.redirect_uri)


class RedirectError(Exception):
    """An authorization error the client hears about at its (verified) redirect URI."""

    def __init__(self, location: str) -> None:
        super().__init__(location)
        self.location = location


@dataclass(frozen=True, slots=True)
class IssuedTokens:
    access_token: str
    refresh_token: str
    expires_in: int
    scopes: tuple[str, ...]

    def response(self) -> dict[str, Any]:
        """The token endpoint's JSON (RFC 6749 §5.1)."""
        return {
            "access_token": self.access_token,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "refresh_token": self.refresh_token,
            "scope": " ".join(self.scopes),
        }


class OAuthServer:
    """The authorization server's rules over the OAuth store."""

    def __init__(
        self,
        store: OAuthStore,
        accounts: AccountStore,
        settings: Settings,
        secret_key: str,
        clock: Clock,
    ) -> None:
        self._store = store
        self._accounts = accounts
        self._settings = settings
        self._secret = secret_key
        self._clock = clock
        self._external = (
            ExternalTokens(store, accounts, settings, clock, self.resource)
            if settings.oauth_issuer
            else None
        )

    # -- metadata ------------------------------------------------------------------------------

    @property
    def issuer(self) -> str:
        return self._settings.oauth_issuer or self._settings.base_url

    @property
    def resource(self) -> str:
        return self._settings.base_url + MCP_RESOURCE_PATH

    def authorization_server_metadata(self) -> dict[str, Any]:
        """RFC 8414 metadata of the built-in authorization server."""
        base = self._settings.base_url
        return {
            "issuer": base,
            "authorization_endpoint": f"{base}/oauth/authorize",
            "token_endpoint": f"{base}/oauth/token",
            "registration_endpoint": f"{base}/oauth/register",
            "revocation_endpoint": f"{base}/oauth/revoke",
            "scopes_supported": list(CONNECTABLE_SCOPES),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": [
                "none",
                "client_secret_post",
                "client_secret_basic",
            ],
            "revocation_endpoint_auth_methods_supported": [
                "none",
                "client_secret_post",
                "client_secret_basic",
            ],
            "service_documentation": f"{base}/docs",
        }

    def protected_resource_metadata(self) -> dict[str, Any]:
        """RFC 9728 metadata of the agent endpoint, naming the authorization server to use."""
        base = self._settings.base_url
        return {
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "scopes_supported": list(CONNECTABLE_SCOPES),
            "bearer_methods_supported": ["header"],
            "resource_name": "carimg vehicle images",
            "resource_documentation": f"{base}/docs",
        }

    # -- registration (RFC 7591) ---------------------------------------------------------------

    async def register(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Register a client; public clients (auth method none) rely on PKCE alone."""
        # First, so that a bad one is invalid_redirect_uri (RFC 7591 §3.2.2).
        uris = body.get("redirect_uris")
        if not isinstance(uris, list) or not uris or not all(isinstance(u, str) for u in uris):
            raise InvalidRedirectUri("redirect_uris must list at least one URI.")
        for uri in uris:
            check_redirect_uri(uri)
        # Its generic URI check would refuse RFC 8252's private-use form (com.example.app:/cb).
        claims = ClientMetadataClaims({k: v for k, v in body.items() if k != "redirect_uris"}, {})
        try:
            claims.validate()
        except Exception as error:  # joserfc's claim errors name the bad member
            raise InvalidClientMetadata(str(error)) from None
        method = (
            claims.get("token_endpoint_auth_method")
            if "token_endpoint_auth_method" in body
            else "none"
        )
        if method not in ("none", "client_secret_post", "client_secret_basic"):
            raise InvalidClientMetadata(f"token_endpoint_auth_method {method} is not supported.")
        for name, allowed in (
            ("grant_types", {"authorization_code", "refresh_token"}),
            ("response_types", {"code"}),
        ):
            values = body.get(name) or []
            if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                raise InvalidClientMetadata(f"{name} must be a list of strings.")
            unsupported = set(values) - allowed
            if unsupported:
                raise InvalidClientMetadata(f"{name} {', '.join(sorted(unsupported))} unsupported.")
        name = str(body.get("client_name") or "").strip()[:200] or redirect_host(uris[0])
        client_id = f"cli_{uuid.uuid4().hex}"
        secret = secrets.token_urlsafe(32) if method != "none" else None
        now = self._clock.now()
        metadata = {
            "client_name": name,
            "redirect_uris": list(uris),
            "token_endpoint_auth_method": method,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            **{
                k: body[k]
                for k in ("client_uri", "logo_uri", "software_id", "software_version")
                if k in body
            },
        }
        await self._store.add_client(
            OAuthClient(
                client_id, name, digest(secret) if secret else None, tuple(uris), metadata, now
            )
        )
        response: dict[str, Any] = {
            "client_id": client_id,
            "client_id_issued_at": int(now.timestamp()),
            **metadata,
        }
        if secret is not None:
            response |= {"client_secret": secret, "client_secret_expires_at": 0}
        return response

    # -- authorization -------------------------------------------------------------------------

    async def authorization_request(self, params: Mapping[str, str]) -> AuthorizationRequest:
        """Validate /oauth/authorize. Until the redirect URI is verified, errors are raised as
        `OAuth2Error` (shown to the person); after, as `RedirectError` (sent to the client)."""
        client = await self._store.client(params.get("client_id", ""))
        if client is None:
            raise InvalidClientError(description="Unknown client_id; register the client first.")
        redirect_uri = params.get("redirect_uri")
        if redirect_uri is None and len(client.redirect_uris) == 1:
            redirect_uri = client.redirect_uris[0]
        if redirect_uri not in client.redirect_uris:  # exact string match, no normalising
            raise InvalidRedirectUri(
                description="redirect_uri does not exactly match one the client registered."
            )
        state = params.get("state")

        def fail(error: str, description: str) -> RedirectError:
            found = {"error": error, "error_description": description, "iss": self.issuer}
            return RedirectError(
                _with_params(redirect_uri, found | ({"state": state} if state else {}))
            )

        if params.get("response_type") != "code":
            raise fail(UnsupportedResponseTypeError.error, "Only response_type=code is supported.")
        challenge = params.get("code_challenge", "")
        if params.get("code_challenge_method") != "S256":
            raise fail("invalid_request", "PKCE is required with code_challenge_method=S256.")
        if not CODE_CHALLENGE_PATTERN.fullmatch(challenge):
            raise fail("invalid_request", "code_challenge must be 43 to 128 characters.")
        requested = tuple(params.get("scope", "").split()) or DEFAULT_SCOPES
        unknown = [scope for scope in requested if scope not in CONNECTABLE_SCOPES]
        if unknown:
            raise fail(
                InvalidScopeError.error,
                f"Connected apps may hold {', '.join(CONNECTABLE_SCOPES)}; "
                f"not {', '.join(unknown)}.",
            )
        resource = params.get("resource")
        if resource is not None and resource.rstrip("/") not in (
            self.resource,
            self._settings.base_url,
        ):
            raise fail("invalid_target", f"The resource here is {self.resource}.")
        return AuthorizationRequest(
            client_id=client.id,
            client_name=client.name,
            redirect_uri=redirect_uri,
            scopes=tuple(scope for scope in CONNECTABLE_SCOPES if scope in requested),
            state=state,
            code_challenge=challenge,
            resource=resource,
        )

    def seal(self, request: AuthorizationRequest) -> str:
        """The request as a signed, expiring value for the consent page's URL and form."""
        payload = asdict(request) | {"exp": int(self._clock.time()) + REQUEST_LIFETIME_SECONDS}
        return sign_value(self._secret, _CONSENT_PURPOSE, payload)

    def unseal(self, sealed: str) -> AuthorizationRequest:
        payload = unsign_value(self._secret, _CONSENT_PURPOSE, sealed)
        if payload is None or int(payload.pop("exp", 0)) < self._clock.time():
            raise InvalidParameter(
                "request",
                "This authorization request expired or was altered; start connecting again from "
                "the app.",
            )
        payload["scopes"] = tuple(payload["scopes"])
        return AuthorizationRequest(**payload)

    async def approve(
        self, account: Account, request: AuthorizationRequest, kept: tuple[str, ...]
    ) -> str:
        """The person approved: a connection with the scopes kept (only ones that were asked
        for) and a one-time code sent back to the client. Returns where the browser goes."""
        if account.status == "suspended":
            raise Forbidden(
                "This account is suspended; contact the operator.", code="account_suspended"
            )
        scopes = tuple(scope for scope in request.scopes if scope in kept)
        if not scopes:
            return self.deny(request, "No permission was granted.")
        client = await self._store.client(request.client_id)
        if client is None:
            raise NotFound("This app's registration is gone; connect it again.")
        now = self._clock.now()
        connection_id = await self._store.connect(
            f"con_{uuid.uuid4().hex[:20]}", account.id, client, scopes, now
        )
        code = CODE_PREFIX + secrets.token_urlsafe(32)
        await self._store.add_code(
            digest(code),
            connection_id,
            request.redirect_uri,
            request.code_challenge,
            scopes,
            request.resource,
            now + CODE_LIFETIME,
        )
        params = {"code": code, "iss": self.issuer} | (
            {"state": request.state} if request.state else {}
        )
        return _with_params(request.redirect_uri, params)

    def deny(self, request: AuthorizationRequest, description: str = "The person declined.") -> str:
        params = {"error": "access_denied", "error_description": description, "iss": self.issuer}
        return _with_params(
            request.redirect_uri, params | ({"state": request.state} if request.state else {})
        )

    # -- the token endpoint --------------------------------------------------------------------

    async def _client(self, form: Mapping[str, str], basic: tuple[str, str] | None) -> OAuthClient:
        """The calling client: public ones name themselves, confidential ones prove it."""
        client_id, secret = (
            basic if basic else (form.get("client_id", ""), form.get("client_secret"))
        )
        client = await self._store.client(client_id)
        if client is None:
            raise InvalidClientError(description="Unknown client.", status_code=401)
        if client.secret_hash is not None and not (
            secret and hmac.compare_digest(client.secret_hash, digest(secret))
        ):
            raise InvalidClientError(description="Client authentication failed.", status_code=401)
        return client

    async def token(self, form: Mapping[str, str], basic: tuple[str, str] | None) -> dict[str, Any]:
        """POST /oauth/token: authorization_code (with the PKCE verifier) or refresh_token."""
        client = await self._client(form, basic)
        grant = form.get("grant_type")
        if grant == "authorization_code":
            return (await self._exchange_code(client, form)).response()
        if grant == "refresh_token":
            return (await self._refresh(client, form)).response()
        raise UnsupportedGrantTypeError(
            description="grant_type is authorization_code or refresh_token."
        )

    async def _exchange_code(self, client: OAuthClient, form: Mapping[str, str]) -> IssuedTokens:
        code = form.get("code", "")
        now = self._clock.now()
        taken = await self._store.take_code(digest(code), now) if code else None
        if taken is None:
            raise InvalidGrantError(description="Unknown authorization code.")
        found, first_use = taken
        if not first_use:
            # A replayed code may be stolen: end what the first exchange obtained (RFC 6749 §4.1.2).
            await self._store.revoke_connection_tokens(found.connection_id, now)
            raise InvalidGrantError(description="This authorization code was already used.")
        if found.client_id != client.id:
            raise InvalidGrantError(description="This code was issued to another client.")
        if now >= found.expires_at:
            raise InvalidGrantError(description="This authorization code expired; authorize again.")
        if form.get("redirect_uri", found.redirect_uri) != found.redirect_uri:
            raise InvalidGrantError(
                description="redirect_uri differs from the authorization request."
            )
        verifier = form.get("code_verifier", "")
        if not CODE_VERIFIER_PATTERN.fullmatch(verifier):
            raise InvalidRequestError(
                description="code_verifier (43 to 128 characters) is required."
            )
        if not compare_s256_code_challenge(verifier, found.code_challenge):
            raise InvalidGrantError(description="code_verifier does not match the code_challenge.")
        return await self._issue(found.connection_id, found.scopes)

    async def _refresh(self, client: OAuthClient, form: Mapping[str, str]) -> IssuedTokens:
        token = form.get("refresh_token", "")
        now = self._clock.now()
        stored = await self._store.token(digest(token)) if token else None
        if stored is None or stored.kind != "refresh" or stored.client_id != client.id:
            raise InvalidGrantError(description="Unknown refresh token.")
        if stored.principal is None:
            raise InvalidGrantError(description="This connection was revoked; connect again.")
        if stored.revoked or not await self._store.use_token(digest(token), now):
            # Rotation: a refresh token works once. Its reuse means a copy leaked; end them all.
            await self._store.revoke_connection_tokens(stored.connection_id, now)
            raise InvalidGrantError(description="This refresh token was already used or revoked.")
        if now >= stored.expires_at:
            raise InvalidGrantError(description="This refresh token expired; connect again.")
        scope = form.get("scope")
        scopes = stored.scopes
        if scope:
            narrowed = tuple(s for s in scope.split() if s in stored.scopes)
            if len(narrowed) != len(scope.split()):
                raise InvalidScopeError(description="A refresh may only narrow the granted scopes.")
            scopes = narrowed
        return await self._issue(stored.connection_id, scopes)

    async def _issue(self, connection_id: str, scopes: tuple[str, ...]) -> IssuedTokens:
        now = self._clock.now()
        lifetime = self._settings.oauth_access_token_seconds
        access = ACCESS_TOKEN_PREFIX + secrets.token_urlsafe(32)
        refresh = REFRESH_TOKEN_PREFIX + secrets.token_urlsafe(32)
        await self._store.add_tokens(
            connection_id,
            scopes,
            [
                NewToken(digest(access), "access", now + timedelta(seconds=lifetime)),
                NewToken(digest(refresh), "refresh", now + REFRESH_LIFETIME),
            ],
        )
        return IssuedTokens(access, refresh, lifetime, scopes)

    async def revoke(self, form: Mapping[str, str], basic: tuple[str, str] | None) -> None:
        """RFC 7009: revoke the client's own token; unknown tokens are not an error."""
        client = await self._client(form, basic)
        token = form.get("token", "")
        if not token:
            raise InvalidRequestError(description="token is required.")
        stored = await self._store.token(digest(token))
        if stored is None or stored.client_id != client.id:
            return
        now = self._clock.now()
        if stored.kind == "refresh":  # a refresh token's grant ends with it (RFC 7009 §2.1)
            await self._store.revoke_connection_tokens(stored.connection_id, now)
        else:
            await self._store.use_token(digest(token), now)

    # -- the resource side ---------------------------------------------------------------------

    async def authenticate(self, token: str) -> Principal:
        """The principal behind an access token: its connection's account and key row, holding
        the scopes this token was issued with."""
        if looks_like_jwt(token):
            if self._external is None:
                raise Unauthenticated(
                    "This server accepts its own access tokens and API keys, not JWTs (no "
                    "external identity provider is configured).",
                    invalid=True,
                )
            return await self._external.authenticate(token)
        stored = await self._store.token(digest(token.strip()))
        if stored is None or stored.kind != "access":
            raise Unauthenticated("The access token is not valid (unknown token).", invalid=True)
        if stored.revoked or stored.principal is None:
            raise Unauthenticated(
                "The access token was revoked; connect the app again.", invalid=True
            )
        if self._clock.now() >= stored.expires_at:
            raise Unauthenticated("The access token expired; refresh it.", invalid=True)
        principal = stored.principal
        if principal.account.status == "suspended":
            raise Forbidden(
                "This account is suspended; contact the operator.", code="account_suspended"
            )
        await self._accounts.touch_key(principal.key.id, self._clock.now())  # "last used"
        scopes = tuple(s for s in principal.key.scopes if s in stored.scopes)
        return Principal(account=principal.account, key=replace(principal.key, scopes=scopes))

    # -- the person's side ---------------------------------------------------------------------

    async def connections(self, account_id: str) -> list[Connection]:
        return await self._store.connections_of(account_id)

    async def revoke_connection(self, account_id: str, connection_id: str) -> None:
        if not await self._store.revoke_connection(account_id, connection_id, self._clock.now()):
            raise NotFound("No such connected app (it may be revoked already).")


def _with_params(uri: str, params: Mapping[str, str]) -> str:
    location: str = add_params_to_uri(uri, list(params.items()))
    return location
