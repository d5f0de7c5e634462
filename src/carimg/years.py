"""The model years carimg serves, shared by every layer: the catalog holds them; the API, the
resolver and the agent tools accept them.

A module without dependencies (as `bodystyles`), so the libraries can import it cheaply.
"""

from __future__ import annotations

from typing import Final

MIN_YEAR: Final = 1990
MAX_YEAR: Final = 2027
