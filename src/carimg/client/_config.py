"""Where the SDK and the CLI find their key and the service's address.

Key: an explicit argument, else `CAR_IMAGE_API_KEY`, else the credentials `carimg login` stored.
Address: an explicit argument, else `CAR_IMAGE_API_URL`, else the stored credentials' address,
else `DEFAULT_BASE_URL`. The variable names are the leading hosted service's, so scripts written
for it work by changing only the address.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

API_KEY_ENV = "CAR_IMAGE_API_KEY"
API_URL_ENV = "CAR_IMAGE_API_URL"
# The default of a deployment's `CARIMG_BASE_URL` (`carimg serve` on this machine); a test keeps
# the two equal.
DEFAULT_BASE_URL = "http://127.0.0.1:8000"


@dataclass(frozen=True, slots=True)
class Credentials:
    """What `carimg login` stores (file mode 0600)."""

    api_key: str
    base_url: str
    key_id: str | None = None
    key_prefix: str | None = None
    scope: str | None = None
    created_at: str | None = None


def config_dir() -> Path:
    """`$XDG_CONFIG_HOME/carimg`, else `~/.config/carimg`."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "carimg"


def credentials_path() -> Path:
    return config_dir() / "credentials.json"


def load_credentials(path: Path | None = None) -> Credentials | None:
    """The stored credentials, or None when there are none (or they cannot be read)."""
    path = path or credentials_path()
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("api_key"), str):
        return None

    def text(name: str) -> str | None:
        value = raw.get(name)
        return value if isinstance(value, str) else None

    return Credentials(
        api_key=raw["api_key"],
        base_url=text("base_url") or DEFAULT_BASE_URL,
        key_id=text("key_id"),
        key_prefix=text("key_prefix"),
        scope=text("scope"),
        created_at=text("created_at"),
    )


def save_credentials(credentials: Credentials, path: Path | None = None) -> Path:
    """Write the credentials readable by the owner only (directory 0700, file 0600), atomically."""
    path = path or credentials_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    # Created 0600 from the start: the key is never readable by others, not even for a moment.
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(asdict(credentials), file, indent=2)
        file.write("\n")
    os.chmod(temporary, 0o600)  # an umask cannot widen it, but an existing file kept its mode
    os.replace(temporary, path)
    return path


def delete_credentials(path: Path | None = None) -> bool:
    """Remove the stored credentials; False when there were none."""
    path = path or credentials_path()
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
        return True
    return False


def resolve_api_key(explicit: str | None = None, base_url: str | None = None) -> str | None:
    """An explicit key, else `CAR_IMAGE_API_KEY`, else the stored one — the stored key only for
    the address it was issued by, so it is never sent to another deployment."""
    if explicit:
        return explicit
    if os.environ.get(API_KEY_ENV):
        return os.environ[API_KEY_ENV]
    stored = load_credentials()
    if stored is None:
        return None
    if base_url is not None and stored.base_url.rstrip("/") != base_url.rstrip("/"):
        return None
    return stored.api_key


def resolve_base_url(explicit: str | None = None) -> str:
    """An explicit address, else `CAR_IMAGE_API_URL`, else the stored one, else the default."""
    if explicit:
        return explicit.rstrip("/")
    if os.environ.get(API_URL_ENV):
        return os.environ[API_URL_ENV].rstrip("/")
    stored = load_credentials()
    return (stored.base_url if stored else DEFAULT_BASE_URL).rstrip("/")
