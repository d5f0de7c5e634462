"""Text rules of the catalog: match keys, slugs, search tokens and display casing."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_WORD_SPLIT = re.compile(r"(\s+|[-/])")
_VOWELS = frozenset("AEIOUY")

# Three-letter words that are ordinary words, not acronyms, when a name arrives in upper case.
_PLAIN_SHORT_WORDS: Final = frozenset(
    {
        "AIR", "BAY", "BEE", "BIG", "BOX", "BUS", "CAB", "CAR", "DAY", "ELF", "EVO", "FOX", "JET",
        "KIA", "LEE", "MAX", "NEO", "NEW", "ONE", "ORA", "PRO", "RAM", "SAN", "SEA", "SKY", "SUN",
        "THE", "TOP", "UTE", "VAN", "WAY", "ZIP", "ACE", "ALL", "AND", "CUB", "DUO", "FUN", "LUX",
        "GO", "OF", "DE", "LA", "LE", "DI", "DA", "EL", "DEL", "VON", "INC", "CO", "COM", "HOT",
        "YOU", "BOB", "CAT", "DAN", "LIN", "HER", "CHE", "ECO", "GAS", "ARC", "BUG", "JIN", "INT",
        "CAN",
    }
)  # fmt: skip

# Whole-name spellings that no casing rule produces (how the makers write themselves).
_MAKE_SPELLINGS: Final[dict[str, str]] = {
    "CAN-AM": "Can-Am",
    "CFMOTO": "CFMoto",
    "DELOREAN": "DeLorean",
    "DESOTO MOTORS": "DeSoto Motors",
    "AMERICAN LAFRANCE": "American LaFrance",
    "FIAT": "Fiat",
    "MINI": "MINI",
    "QJMOTOR": "QJMotor",
    "SEAT": "SEAT",
    "SSANGYONG": "SsangYong",
    "SSANGYONG MUSSO": "SsangYong Musso",
    "TH!NK": "Th!nk",
    "VINFAST": "VinFast",
    "XPENG": "XPeng",
    "KTM": "KTM",
    "NIU": "NIU",
    "SYM": "SYM",
    "TVR": "TVR",
    "GAC": "GAC",
    "GAC AION": "GAC Aion",
    "BYD": "BYD",
    "JAC": "JAC",
    "DAF": "DAF",
    "MAN": "MAN",
    "LEVC": "LEVC",
    "BAIC": "BAIC",
    "IVECO": "Iveco",
    "SANY": "Sany",
    "ZEEKR": "Zeekr",
    "LIVEWIRE": "LiveWire",
    "EV INNOVATIONS": "EV Innovations",
}


def _fold(text: str) -> str:
    """Lower case without accents (`Citroën` → `citroen`)."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def norm(text: str) -> str:
    """Match key: lower-case letters and digits only, so `F-150`, `f150` and `F 150` agree."""
    return _NON_ALNUM.sub("", _fold(text))


def slugify(text: str) -> str:
    """Lower-case, hyphenated slug (`Mercedes-Benz` → `mercedes-benz`, `CR-V` → `cr-v`)."""
    slug = _NON_ALNUM.sub("-", _fold(text)).strip("-")
    return slug or "x"


def tokens(text: str) -> list[str]:
    """Search tokens: whitespace-separated words reduced to their match keys (`CR-V` → `crv`)."""
    return [key for word in text.split() if (key := norm(word))]


def _case_word(word: str, *, make: bool) -> str:
    if not word or (not word[0].isalnum() and not word.startswith("(")):
        return word
    if word.startswith("(") and word.endswith(")"):
        return word.upper()
    letters = "".join(ch for ch in word if ch.isalpha())
    if word.upper() in _PLAIN_SHORT_WORDS or letters.upper() in {"INC", "LTD", "CO"}:
        return word.capitalize()
    if any(ch.isdigit() for ch in word) or len(letters) <= 2:
        return word.upper()
    if len(letters) == 3 or (len(letters) <= 4 and not _VOWELS.intersection(letters.upper())):
        return word.upper()
    if make and word.upper().startswith("MC") and len(word) > 3:
        return "Mc" + word[2:].capitalize()
    return word[0].upper() + word[1:].lower()


def display_case(name: str, *, make: bool = False) -> str:
    """Write a registry name (often all upper case) the way people write it.

    Names that already mix cases are kept. Acronyms (short words, words without vowels, words with
    digits) stay upper case; other words are capitalised: `ALFA ROMEO` → `Alfa Romeo`,
    `MERCEDES-BENZ` → `Mercedes-Benz`, `BMW` → `BMW`, `MCLAREN` → `McLaren`.
    """
    stripped = " ".join(name.split())
    if make and stripped.upper() in _MAKE_SPELLINGS:
        return _MAKE_SPELLINGS[stripped.upper()]
    if stripped != stripped.upper():
        return stripped
    parts = _WORD_SPLIT.split(stripped)
    return "".join(_case_word(part, make=make) for part in parts)
