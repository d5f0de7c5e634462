"""The records the ways in (API, web pages, agent tools) hold: who is asking, and their account.

The store defines them, since it returns them (`carimg.store.records`); the layers above the
domain take them from here, so none of them reaches past the domain into the store.
"""

from __future__ import annotations

from carimg.store.records import Account, Principal

__all__ = ["Account", "Principal"]
