"""Free-text resolver: "red 2019 camry from the side, png" → a catalog vehicle and image parameters.

Deterministic and free: no model calls, no I/O, only the loaded catalog and the tables below.

How a query is read
-------------------
1. The text is split into words (commas, colons and brackets separate words; `F-150`, `3/4`,
   `#1a2b3c` and `'08` stay whole) and scanned for phrases, longest first, compared without
   punctuation or spaces (so `head-on`, `head on` and `headon` agree):

   - years in `carimg.years`' range: four digits, `'08` / `’08`, `my2019`, `my19`, `2019my`,
     `2019/20`, `2018-19`, `2019/2020` (a year and the next: the first), and years in words
     (`two thousand and eleven`, `two-thousand-eight`, `nineteen ninety-one`, `nineteen hundred
     and ninety five`, `twenty-twelve`, `twenty twenty two`, `twenty oh five`); the filler phrase
     `model year` is dropped with them;
   - colors: the 15 presets, `#rgb` / `#rrggbb` (bare hex only right after `color`/`paint`), and
     synonyms mapped to a preset by an explicit table (`COLOR_SYNONYMS`: navy → blue, charcoal →
     gray, maroon → burgundy, champagne → beige …), optionally after modifiers (`dark`, `light`,
     `metallic`, `matte`, `pearl` …; `light gray` → silver, `dark red` → burgundy …);
   - views: `side profile`, `from the side`, `left side` → side; `right side`, `passenger side` →
     side-right; `from behind`, `rear view`, `back` → rear; `rear 3/4`, `rear three-quarter` →
     rear-3-4; `front 3/4`, `front three quarter`, `hero` → front-3-4; `head-on`, `front view` →
     front; and every view id and alias of the spec;
   - sizes: `thumbnail`/`thumb`/`tiny`, `small`, `medium`, `large`/`big`/`hi-res`; widths `512px`,
     `512 px`, `800 wide`, `800w`, `w=800`, `512x512` (clamped to 1024);
   - formats: `png`, `webp`, `jpg`, `jpeg`;
   - filler words (a, the, of, photo, picture, image, render, car, please, show me …) and soft
     words that are usually filler but sometimes part of a model name (van, truck, bus, is, new …);
   - a few everyday names the catalog does not know (`beamer`, `vette`, `rangie`, `caddy` …) are
     rewritten.

2. The remaining words are searched with `Catalog.search`. A text of more than six remaining words
   is searched only around the makes it names (step 3's first reading): the vehicle is where a make
   is named, the rest is filler (`… a picture of a 2018 toyota camry for my blog`). Because a
   removed word may belong to the model (`Honda Gold Wing`, `Peugeot 2008`, `Blue Bird`, `Ram Van`,
   `Lexus IS 300`, `Auto Rickshaw`), the resolver also searches readings that keep one color word or
   alias as text, or all soft words, or a year-like number as text (each year-like word in turn is
   the year). A reading that keeps a parsed word counts only when it yields an exact or prefix model
   match. The best reading wins: a model match of a better kind (exact > prefix > token > contains >
   fuzzy), then one with a year, then the one that explains more of the typed words. Only a make
   (`toyota`) is no match.

3. When no reading matches better than `contains`: a named make with one to three words after
   it (or one or two before it) as the model, matching exactly or by prefix (`subaru wrx sti` →
   WRX; in a short text without a make: one or two words that are exactly a model's name); else
   a misspelt model of a make the text names is compared with that make's models only (`chevy
   camero` → Camaro); failing that, readings with one unknown word left out (two, from four
   words up) are tried, never leaving only a make's name. Words left out make confidence low.

   Bounded work: typo matching (which compares the whole text with every catalog name) runs
   only for readings of at most four words that keep every typed word and no parsed one; at most
   two year-like words are tried as the year, four parsed words as model words, three make names
   of a text and its first forty words for make names, so a 200-character text costs at most a
   few dozen catalog searches of at most eight words.

4. Among the model hits of the best kind, the resolver prefers a model whose make the text named
   by words of its own (`rover` in `range rover` names no make), unless that model is a stray
   entry with under a quarter of the model-year entries of the largest tied model (`range rover
   evoque` → Land Rover, not the one-year make "Range Rover"); then a model that exists in the
   asked year; then more model-year entries (a popularity proxy: `s10` → S-10 Pickup rather than
   the two-year S-10 Blazer); then the catalog's own order. Candidates are up to five model hits,
   the chosen one first, each with all its years.

Year
----
The `year` argument overrides a year in the text. `extracted.year` is the year asked (argument,
else text). When the chosen model does not exist in that year but another catalog entry of the
same vehicle does (`GLE` and `GLE-Class`, `R1` and `YZF-R1`, `GLE 350 …` and `GLE`, `Miata` and
`MX-5`: see `_same_vehicle`), that entry is chosen and the literal one follows it in the
candidates. When no entry has the year, the nearest available year is used (the later one on a
tie), confidence is at most medium and the candidates list the entries with their years. Without
any year, the model's latest year is used (and no other entry is considered).

Confidence
----------
- **high**: the best hit is an exact or prefix model match; its make was named (in the text or by
  the `make` argument); no other model of a named make ties at that match kind; no typed word had
  to be left out; and the asked year (if any) exists for the model.
- **low**: a fuzzy (typo) match; or a word of the text had to be left out to find a match; or
  several models tie at a `token` or `contains` match.
- **medium**: every other match (for example the make was not named — `camry 2018` — a prefix or
  exact tie, a unique token match, the nearest-year fallback, or a long text whose other words
  were left out around the named make and model).

`Unresolved` is raised when no model matches; its `makes` lists the makes that were recognised
(`toyota`, or `toyota zzzz`), empty when none was.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Final, Literal
from urllib.parse import urlencode

from rapidfuzz import fuzz, process

from carimg.catalog import MATCH_KINDS, Catalog, Make, Model, SearchHit, Vehicle, norm
from carimg.domain.imagerequest import IMAGE_PATH, parse_color
from carimg.domain.views import (
    COLORS,
    DEFAULT_COLOR,
    DEFAULT_VIEW,
    FORMAT_ALIASES,
    MAX_SIZE,
    VIEW_BY_NAME,
)
from carimg.years import MAX_YEAR, MIN_YEAR

Confidence = Literal["high", "medium", "low"]

MAX_CANDIDATES: Final = 5
_SEARCH_LIMIT: Final = 25
_MAX_PHRASE: Final = 4
_MIN_TYPO_LENGTH: Final = 4
_MIN_WORDS_TO_LEAVE_TWO: Final = 4
_MAKE_TYPO_CUTOFF: Final = 75.0  # within one named make's models
# Bounded work (a query has at most 200 characters, but any number of words and phrases):
_MAX_SEARCH_WORDS: Final = 6  # longer texts are searched only around the makes they name
_MAX_TEXT_WORDS: Final = 40  # words of a text that are looked at for make names
_MAX_MAKE_RUNS: Final = 3  # make names in a long text whose surroundings are searched
_WINDOW_AFTER: Final = 3  # words after a make name read as its model, at most
_WINDOW_BEFORE: Final = 2  # words before it
_MAX_TYPO_WORDS: Final = 4  # typo matching compares whole texts: only short ones
_MAX_MODEL_WORDS: Final = 12  # words of a text naming no make tried as a model's whole name
_MAX_YEAR_CHOICES: Final = 2  # year-like words tried as the year (the last ones)
_MAX_RESTORED: Final = 4  # parsed words tried as model words, one at a time
_STRAY_SHARE: Final = 4  # a named make's model under 1/4 of a tie's largest entries is a stray
_MIN_NICKNAME: Final = 3  # letters a name must add before another to be the same vehicle's

# -- tables ------------------------------------------------------------------------------------

# Color words (match keys) → preset. Presets map to themselves.
COLOR_SYNONYMS: Final[dict[str, str]] = {
    **{name: name for name in COLORS},
    "grey": "gray",
    # white
    "ivory": "white", "pearl": "white", "snow": "white", "alabaster": "white",
    "offwhite": "white", "eggshell": "white",
    # black
    "onyx": "black", "ebony": "black", "obsidian": "black", "jetblack": "black",
    # gray
    "charcoal": "gray", "graphite": "gray", "gunmetal": "gray", "slate": "gray",
    "anthracite": "gray", "darkgray": "gray", "darkgrey": "gray", "spacegray": "gray",
    "spacegrey": "gray", "ash": "gray",
    # silver
    "chrome": "silver", "platinum": "silver", "aluminum": "silver", "aluminium": "silver",
    "titanium": "silver", "steel": "silver", "lightgray": "silver", "lightgrey": "silver",
    # blue
    "navy": "blue", "cobalt": "blue", "azure": "blue", "sapphire": "blue", "cyan": "blue",
    "aqua": "blue", "turquoise": "blue", "denim": "blue", "skyblue": "blue",
    # red
    "crimson": "red", "scarlet": "red", "cherry": "red", "ruby": "red", "pink": "red",
    "rose": "red", "candyred": "red", "cherryred": "red",
    # burgundy
    "maroon": "burgundy", "wine": "burgundy", "oxblood": "burgundy", "claret": "burgundy",
    "bordeaux": "burgundy", "merlot": "burgundy", "darkred": "burgundy", "winered": "burgundy",
    # green
    "teal": "green", "olive": "green", "lime": "green", "emerald": "green", "forest": "green",
    "mint": "green", "sage": "green", "racinggreen": "green", "britishracinggreen": "green",
    # brown
    "bronze": "brown", "chocolate": "brown", "mocha": "brown", "coffee": "brown",
    "espresso": "brown", "chestnut": "brown",
    # beige and tan
    "cream": "beige", "champagne": "beige", "sand": "beige", "ecru": "beige",
    "khaki": "tan", "camel": "tan", "caramel": "tan", "lightbrown": "tan",
    # orange, yellow, gold
    "copper": "orange", "amber": "orange", "tangerine": "orange", "rust": "orange",
    "mustard": "yellow", "lemon": "yellow", "golden": "gold",
    # purple
    "violet": "purple", "lavender": "purple", "lilac": "purple", "plum": "purple",
    "indigo": "purple", "magenta": "purple", "aubergine": "purple", "eggplant": "purple",
}  # fmt: skip

# Words that may precede a color word ("dark blue", "metallic silver"); alone they are no color.
_COLOR_MODIFIERS: Final = frozenset(
    {
        "dark", "light", "deep", "bright", "pale", "metallic", "matte", "matt", "pearl",
        "pearlescent", "gloss", "glossy", "satin", "midnight", "sky", "baby", "royal", "candy",
        "hot", "electric", "neon", "ice", "arctic", "jet", "burnt", "racing", "british", "dusty",
        "soft", "vivid", "frozen", "apple", "fire", "blood", "forest", "lime", "olive", "wine",
        "cherry", "navy",
    }
)  # fmt: skip

# Views, keyed by phrase match key (words joined without punctuation or spaces).
_VIEW_PHRASES: Final[dict[str, str]] = {
    **{norm(name): view for name, view in VIEW_BY_NAME.items()},
    # front three-quarter
    "front34": "front-3-4", "34front": "front-3-4", "frontthreequarter": "front-3-4",
    "frontthreequarters": "front-3-4", "threequarterfront": "front-3-4",
    "frontquarter": "front-3-4", "34": "front-3-4", "threequarter": "front-3-4",
    "threequarters": "front-3-4", "34view": "front-3-4", "threequarterview": "front-3-4",
    "hero": "front-3-4", "heroshot": "front-3-4", "heroangle": "front-3-4",
    # rear three-quarter
    "rear34": "rear-3-4", "back34": "rear-3-4", "34rear": "rear-3-4", "34back": "rear-3-4",
    "rearthreequarter": "rear-3-4", "rearthreequarters": "rear-3-4",
    "threequarterrear": "rear-3-4", "threequartersrear": "rear-3-4",
    "backthreequarter": "rear-3-4", "rearquarter": "rear-3-4",
    # side (left)
    "side": "side", "sideview": "side", "sideprofile": "side", "profile": "side",
    "profileview": "side", "sideon": "side", "fromtheside": "side", "sideways": "side",
    "leftside": "side", "leftprofile": "side", "fromtheleft": "side", "driverside": "side",
    "driversside": "side", "left": "side", "sideshot": "side",
    # side (right)
    "rightside": "side-right", "rightprofile": "side-right", "fromtheright": "side-right",
    "passengerside": "side-right", "right": "side-right", "rightsideview": "side-right",
    # rear
    "rear": "rear", "rearview": "rear", "back": "rear", "backview": "rear", "behind": "rear",
    "frombehind": "rear", "fromtherear": "rear", "fromtheback": "rear", "rearend": "rear",
    "viewedfromtherear": "rear", "viewedfrombehind": "rear",
    # front
    "front": "front", "frontview": "front", "headon": "front", "fromthefront": "front",
    "fronton": "front", "straighton": "front", "frontal": "front", "frontend": "front",
}  # fmt: skip

SIZE_WORDS: Final[dict[str, str]] = {
    "thumbnail": "thumb", "thumb": "thumb", "thumbnails": "thumb", "tiny": "thumb",
    "small": "small", "medium": "medium", "large": "large", "big": "large",
    "hires": "large", "highres": "large", "highresolution": "large", "fullsize": "large",
    "fullres": "large",
}  # fmt: skip

# Words that never name a vehicle here.
_FILLERS: Final = frozenset(
    {
        "a", "an", "the", "of", "photo", "photos", "photograph", "picture", "pictures", "pic",
        "pics", "image", "images", "img", "render", "rendering", "rendered", "renders", "car",
        "cars", "vehicle", "vehicles", "automobile", "please", "pls", "plz", "show", "me",
        "give", "get", "i", "id", "im", "need", "want", "would", "like", "can", "could", "you",
        "generate", "create", "draw", "produce", "my", "for", "with", "in", "on", "at", "from",
        "view", "viewed", "shot", "angle", "stock", "listing", "look", "looks", "does", "do",
        "what", "how", "this", "that", "some", "just", "to", "be", "it", "its", "and", "as",
        "color", "colour", "colored", "coloured", "paint", "painted", "finish", "format",
        "file", "size", "resolution", "res", "version", "year", "clipart", "illustration",
        "studio", "wallpaper", "transparent", "background", "wide", "width", "pixels", "px",
        "hi", "high", "full", "modelyear", "make",
    }
)  # fmt: skip

# Words that are usually filler but sometimes part of a model name (Ram Van, Lexus IS 300).
_SOFT_WORDS: Final = frozenset(
    {
        "van", "minivan", "truck", "pickup", "bus", "school", "coach", "motorcycle", "motorbike",
        "bike", "scooter", "moped", "suv", "sedan", "saloon", "coupe", "hatchback", "hatch",
        "wagon", "estate", "convertible", "cabriolet", "lorry", "is", "new", "old", "one",
        "mk", "series", "auto",
    }
)  # fmt: skip

# Multi-word soft phrases (match keys of the words joined).
_SOFT_PHRASES: Final[dict[str, str]] = {
    "superduty": "soft", "heavyduty": "soft", "schoolbus": "soft", "boxtruck": "soft",
    "semitruck": "soft", "pickuptruck": "soft", "cargovan": "soft", "panelvan": "soft",
}  # fmt: skip

# Model words as people say them → as the catalog names the model (match keys of the words).
_PHRASE_ALIASES: Final[dict[str, tuple[str, ...]]] = {
    "silverado1500": ("silverado",),
    "silverado2500": ("silverado", "hd"),
    "silverado3500": ("silverado", "hd"),
    "silverado2500hd": ("silverado", "hd"),
    "silverado3500hd": ("silverado", "hd"),
    "sierra1500": ("sierra",),
    "sierra2500": ("sierra", "hd"),
    "sierra3500": ("sierra", "hd"),
    "sierra2500hd": ("sierra", "hd"),
    "sierra3500hd": ("sierra", "hd"),
    "vwbug": ("volkswagen", "beetle"),
    "volkswagenbug": ("volkswagen", "beetle"),
}

# Everyday names the catalog's own aliases lack (the catalog knows vw, chevy, merc, beemer …).
_WORD_ALIASES: Final[dict[str, tuple[str, ...]]] = {
    "beamer": ("bmw",),
    "beemers": ("bmw",),
    "chevvy": ("chevrolet",),
    "chevie": ("chevrolet",),
    "vette": ("corvette",),
    "rangie": ("range", "rover"),
    "rangey": ("range", "rover"),
    "landy": ("land", "rover"),
    "caddy": ("cadillac",),
    "caddie": ("cadillac",),
    "porker": ("porsche",),
    "hyundia": ("hyundai",),
    "lambo": ("lamborghini",),
    "ferrarri": ("ferrari",),
}

# Model names (match keys) that the catalog keeps as separate entries of one vehicle, where no
# spelling rule relates them (see `_same_vehicle`).
_SAME_VEHICLE: Final[dict[str, str]] = {
    "miata": "mx5",
    "mx5miata": "mx5",
}

_WORD = re.compile(r"[^\s,;:!?()\[\]{}\"<>|]+")
_HEX_TOKEN = re.compile(r"#([0-9a-f]{6}|[0-9a-f]{3})")
_BARE_HEX = re.compile(r"#?([0-9a-f]{6}|[0-9a-f]{3})")
_SHORT_YEAR = re.compile(r"['’‘`](\d{2})")
_MY_YEAR = re.compile(r"my'?(\d{4}|\d{2})|(\d{4})my")
_YEAR_PAIR = re.compile(r"(\d{4})[/\-–](\d{2}|\d{4})")  # 2019/20, 2018-19, 2019/2020
_NUMBER_PARTS = re.compile(r"[\-‐–]")

# Years written in words: nineteen ninety-one, two thousand and eleven, twenty twelve, twenty oh
# five, nineteen hundred and ninety-five.
_UNITS: Final = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9,
}  # fmt: skip
_TEENS: Final = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS: Final = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_ZERO_WORDS: Final = frozenset({"oh", "o", "zero", "nought"})
_MAX_YEAR_WORDS: Final = 6  # "two thousand and twenty three" and a spare
_WIDTH_TOKEN = re.compile(r"(\d{2,4})(?:px|pixels?|w|wide)")
_WIDTH_ASSIGN = re.compile(r"(?:w|width)=(\d{1,4})")
_DIMENSIONS = re.compile(r"(\d{2,4})x(\d{2,4})(?:px)?")
_WIDTH_UNITS: Final = frozenset({"px", "pixel", "pixels", "wide", "w", "width"})


# -- results -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Extracted:
    """What the text said (the year: what was asked); None when absent."""

    year: int | None
    color: str | None
    view: str | None
    size: str | None
    width: int | None
    format: str | None


@dataclass(frozen=True, slots=True)
class Resolution:
    """The chosen catalog vehicle with its image parameters, candidates and confidence."""

    vehicle: Vehicle
    view: str
    color: str
    size: str | None
    width: int | None
    format: str | None
    candidates: list[SearchHit]
    confidence: Confidence
    extracted: Extracted

    def params(self) -> dict[str, str | int]:
        """The image endpoint's query parameters for this resolution, in its names."""
        params: dict[str, str | int] = {
            "make": self.vehicle.make.slug,
            "model": self.vehicle.model.slug,
            "year": self.vehicle.year,
            "view": self.view,
            "color": self.color,
        }
        if self.size is not None:
            params["size"] = self.size
        if self.width is not None:
            params["w"] = self.width
        if self.format is not None:
            params["format"] = self.format
        return params

    def image_path(self) -> str:
        """A ready path on `/api/v1/images/car`."""
        return f"{IMAGE_PATH}?{urlencode(self.params())}"


class Unresolved(Exception):
    """No catalog model matches the text; `makes` holds the makes it did name, if any."""

    def __init__(self, query: str, makes: Sequence[Make] = ()) -> None:
        self.query = query
        self.makes: list[Make] = list(makes)
        if self.makes:
            names = ", ".join(make.name for make in self.makes)
            message = f"No model matches '{query}'; recognised make: {names}."
        else:
            message = f"No catalog vehicle matches '{query}'."
        super().__init__(message)


# -- parsing -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Span:
    """Typed words the parser took out (or rewrote), with what they meant."""

    start: int
    end: int
    kind: Literal["year", "color", "view", "size", "width", "format", "filler", "soft", "alias"]
    replacement: tuple[str, ...] = ()  # words that stand in the search text (aliases)
    value: str | int | None = None

    @property
    def restorable(self) -> bool:
        """May this span be part of a model name after all?"""
        return self.kind in ("year", "color", "alias")


@dataclass(slots=True)
class _Parsed:
    words: list[str]
    spans: list[_Span] = field(default_factory=list)


def _key(word: str) -> str:
    return re.sub(r"[^a-z0-9/#'’‘`]", "", word.lower())


def _phrase(keys: Sequence[str], start: int, table: dict[str, str]) -> tuple[int, str] | None:
    """The longest phrase of `table` starting at `start`: (end, value)."""
    for end in range(min(len(keys), start + _MAX_PHRASE), start, -1):
        joined = "".join(k.replace("/", "") for k in keys[start:end])
        if joined and joined in table:
            return end, table[joined]
    return None


def _year_of(key: str) -> int | None:
    if len(key) == 4 and key.isdigit():
        year = int(key)
        return year if MIN_YEAR <= year <= MAX_YEAR else None
    match = _SHORT_YEAR.fullmatch(key) or _MY_YEAR.fullmatch(key)
    if match:
        digits = next(group for group in match.groups() if group)
        year = int(digits) if len(digits) == 4 else int(digits) + (1900 if digits >= "90" else 2000)
        return year if MIN_YEAR <= year <= MAX_YEAR else None
    return None


def _year_pair(word: str) -> int | None:
    """`2019/20`, `2018-19`, `2019/2020`: a model year written with the next one; the first."""
    match = _YEAR_PAIR.fullmatch(word)
    if match is None:
        return None
    first, second = int(match.group(1)), match.group(2)
    following = first + 1
    if second not in (str(following), f"{following % 100:02d}"):
        return None
    return first if MIN_YEAR <= first <= MAX_YEAR else None


def _below_hundred(parts: Sequence[str], at: int) -> tuple[int, int] | None:
    """A number 1–99 in words at `parts[at]`: (value, parts used)."""
    if at >= len(parts):
        return None
    part = parts[at]
    if part in _TEENS:
        return _TEENS[part], 1
    if part in _UNITS:
        return _UNITS[part], 1
    if part in _TENS:
        if at + 1 < len(parts) and parts[at + 1] in _UNITS:
            return _TENS[part] + _UNITS[parts[at + 1]], 2
        return _TENS[part], 1
    return None


def _year_from_parts(parts: Sequence[str]) -> tuple[int, int] | None:
    """A year in words at the start of `parts`: (year, parts used), longest reading."""
    if len(parts) < 2:
        return None
    head, rest = parts[0], 1
    if head == "two" and parts[1] == "thousand":
        rest = 2
        if rest < len(parts) and parts[rest] == "and":
            rest += 1
        tail = _below_hundred(parts, rest)
        if tail is None:
            return (2000, 2) if parts[rest - 1] == "thousand" else None
        return 2000 + tail[0], rest + tail[1]
    if head == "nineteen" and parts[1] == "hundred":
        rest = 3 if len(parts) > 2 and parts[2] == "and" else 2
        tail = _below_hundred(parts, rest)
        return (1900 + tail[0], rest + tail[1]) if tail else None
    if head == "nineteen":
        tail = _below_hundred(parts, 1)
        return (1900 + tail[0], 1 + tail[1]) if tail and tail[0] >= 10 else None
    if head == "twenty":
        if parts[1] in _ZERO_WORDS:
            unit = parts[2] if len(parts) > 2 else ""
            return (2000 + _UNITS[unit], 3) if unit in _UNITS else None
        tail = _below_hundred(parts, 1)
        return (2000 + tail[0], 1 + tail[1]) if tail and tail[0] >= 10 else None
    return None


def _year_in_words(words: Sequence[str], start: int) -> tuple[int, int] | None:
    """A year written in words from `words[start]` (hyphens split words): (end, year).

    The year must take whole words and lie within MIN_YEAR–MAX_YEAR.
    """
    if _NUMBER_PARTS.split(words[start].strip(".,'’"))[0] not in ("two", "nineteen", "twenty"):
        return None
    parts: list[str] = []
    ends: list[int] = []  # parts used when word i ends
    for index in range(start, min(len(words), start + _MAX_YEAR_WORDS)):
        pieces = [piece.strip(".,'’") for piece in _NUMBER_PARTS.split(words[index])]
        parts.extend(piece for piece in pieces if piece)
        ends.append(len(parts))
    found = _year_from_parts(parts)
    if found is None or not MIN_YEAR <= found[0] <= MAX_YEAR or found[1] not in ends:
        return None
    return start + ends.index(found[1]) + 1, found[0]


def _color_at(keys: Sequence[str], start: int) -> tuple[int, str] | None:
    """Modifiers then one or two color words ("navy blue", "metallic silver", "dark red")."""
    index = start
    while index < len(keys) and keys[index] in _COLOR_MODIFIERS and keys[index] != "":
        if keys[index] in COLOR_SYNONYMS and (
            index + 1 >= len(keys)
            or (keys[index + 1] not in COLOR_SYNONYMS and keys[index + 1] not in _COLOR_MODIFIERS)
        ):
            break  # "navy", "wine", "olive" alone are colors
        index += 1
    if index >= len(keys) or keys[index] not in COLOR_SYNONYMS:
        return None
    end = index + 1
    if end < len(keys) and keys[end] in COLOR_SYNONYMS:
        end += 1  # "navy blue", "wine red"
    for first in range(start, end):  # the longest known phrase decides, else the last word
        joined = "".join(keys[first:end])
        if joined in COLOR_SYNONYMS:
            return end, COLOR_SYNONYMS[joined]
    return end, COLOR_SYNONYMS[keys[end - 1]]


def _width_at(words: Sequence[str], keys: Sequence[str], start: int) -> tuple[int, int] | None:
    key = keys[start]
    assigned = _WIDTH_ASSIGN.fullmatch(words[start])
    if assigned:
        return start + 1, int(assigned.group(1))
    for pattern in (_WIDTH_TOKEN, _DIMENSIONS):
        match = pattern.fullmatch(key)
        if match:
            return start + 1, int(match.group(1))
    if (
        key.isdigit()
        and 2 <= len(key) <= 4
        and start + 1 < len(keys)
        and keys[start + 1] in _WIDTH_UNITS
    ):
        end = start + 2
        if keys[start + 1] == "px" and end < len(keys) and keys[end] == "wide":
            end += 1
        return end, int(key)
    if key in ("w", "width") and start + 1 < len(keys) and keys[start + 1].isdigit():
        return start + 2, int(keys[start + 1])
    return None


def _alias_at(keys: Sequence[str], start: int) -> tuple[int, tuple[str, ...]] | None:
    for end in range(min(len(keys), start + 3), start + 1, -1):
        joined = "".join(keys[start:end])
        if joined in _PHRASE_ALIASES:
            return end, _PHRASE_ALIASES[joined]
    if keys[start] in _WORD_ALIASES:
        return start + 1, _WORD_ALIASES[keys[start]]
    return None


def _parse(text: str) -> _Parsed:
    words = _WORD.findall(text.lower())
    keys = [_key(word) for word in words]
    parsed = _Parsed(words=words)
    index = 0
    while index < len(words):
        key = keys[index]
        span: _Span | None = None
        if not key:
            span = _Span(index, index + 1, "filler")
        elif (hex_match := _HEX_TOKEN.fullmatch(key)) is not None:
            span = _Span(index, index + 1, "color", value=parse_color(hex_match.group(0)))
        elif (
            index > 0
            and keys[index - 1] in ("color", "colour", "paint")
            and _BARE_HEX.fullmatch(key)
            and any(ch.isdigit() for ch in key)
        ):
            span = _Span(index, index + 1, "color", value=parse_color(key))
        elif (year := _year_of(key) or _year_pair(words[index])) is not None:
            span = _Span(index, index + 1, "year", value=year)
        elif (spelt := _year_in_words(words, index)) is not None:
            span = _Span(index, spelt[0], "year", value=spelt[1])
        elif key == "model" and index + 1 < len(keys) and keys[index + 1] == "year":
            span = _Span(index, index + 2, "filler")
        elif (width := _width_at(words, keys, index)) is not None:
            span = _Span(index, width[0], "width", value=width[1])
        elif key.lstrip(".") in ("png", "webp", "jpg", "jpeg"):
            name = key.lstrip(".")
            span = _Span(index, index + 1, "format", value=FORMAT_ALIASES.get(name, name))
        elif (color := _color_at(keys, index)) is not None:
            span = _Span(index, color[0], "color", value=color[1])
        elif (view := _phrase(keys, index, _VIEW_PHRASES)) is not None:
            span = _Span(index, view[0], "view", value=view[1])
        elif (size := _phrase(keys, index, SIZE_WORDS)) is not None:
            span = _Span(index, size[0], "size", value=size[1])
        elif (alias := _alias_at(keys, index)) is not None:
            span = _Span(index, alias[0], "alias", replacement=alias[1])
        elif (soft := _phrase(keys, index, _SOFT_PHRASES)) is not None:
            span = _Span(index, soft[0], "soft")
        elif key in _FILLERS:
            span = _Span(index, index + 1, "filler")
        elif key in _SOFT_WORDS:
            span = _Span(index, index + 1, "soft")
        if span is None:
            index += 1
            continue
        parsed.spans.append(span)
        index = span.end
    return parsed


# -- readings ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Reading:
    """One way to read the words: which spans stay as text, which word (if any) is left out."""

    words: tuple[str, ...]
    year: int | None
    kept: frozenset[int] = frozenset()  # indexes of parsed spans read as text after all
    keep_soft: bool = False
    kept_count: int = 0  # spans other than years read as text (soft words count once)
    dropped: int = 0  # unknown words left out
    dropped_chars: int = 0
    ignored: int = 0  # words of a long text around the named make and model, left out


@dataclass(frozen=True, slots=True)
class _Outcome:
    reading: _Reading
    hits: list[SearchHit]  # model hits only, the catalog's order
    make_only: list[Make]

    @property
    def rank(self) -> int:
        return MATCH_KINDS.index(self.hits[0].match_kind) if self.hits else len(MATCH_KINDS)

    def order(self) -> tuple[int, int, int, int, int, int]:
        reading = self.reading
        has_year = 0 if reading.year is not None else 1
        return (
            self.rank,
            reading.dropped,
            reading.ignored,
            has_year,
            -reading.kept_count,
            reading.dropped_chars,
        )


def _plain_words(parsed: _Parsed) -> bool:
    """Are there words the parser took for nothing (or rewrote as aliases)?"""
    covered = {
        i for span in parsed.spans if span.kind != "alias" for i in range(span.start, span.end)
    }
    return len(covered) < len(parsed.words)


def _readings(parsed: _Parsed) -> Iterable[_Reading]:
    """The base reading, then each restorable span kept as text, then all soft words kept.

    Each reading is repeated for every choice of the year: each year-like word (last first) as
    the year with the others kept as text, then no year at all.
    """
    spans = parsed.spans
    years = [i for i, span in enumerate(spans) if span.kind == "year"]
    # Bounded work: the last two year-like words as the year, then none.
    year_choices: list[int | None] = [*list(reversed(years))[:_MAX_YEAR_CHOICES], None]
    restorable = [i for i, span in enumerate(spans) if span.restorable and span.kind != "year"]
    restorable = restorable[:_MAX_RESTORED]
    variants: list[tuple[frozenset[int], bool]] = [(frozenset(), False)]
    # A word read as a model word needs other words beside it: "red" alone is no query.
    if _plain_words(parsed):
        variants += [(frozenset({i}), False) for i in restorable]
        if any(span.kind == "soft" for span in spans):
            variants.append((frozenset(), True))
    else:
        year_choices = year_choices[:1]
    for year_index in year_choices:
        as_years = frozenset(i for i in years if i != year_index)
        for kept, keep_soft in variants:
            kept_all = kept | as_years
            words: list[str] = []
            position = 0
            for index, span in enumerate(spans):
                words.extend(parsed.words[position : span.start])
                position = span.end
                if index in kept_all or (span.kind == "soft" and keep_soft):
                    words.extend(parsed.words[span.start : span.end])
                else:
                    words.extend(span.replacement)
            words.extend(parsed.words[position:])
            year = spans[year_index].value if year_index is not None else None
            assert year is None or isinstance(year, int)
            kept_count = len(kept) + (1 if keep_soft else 0)
            yield _Reading(tuple(words), year, kept_all, keep_soft, kept_count)


class _Searcher:
    """Runs catalog searches for readings, remembering each text's outcome."""

    def __init__(self, catalog: Catalog, make: Make | None) -> None:
        self.catalog = catalog
        self.make = make
        self._cache: dict[tuple[tuple[str, ...], bool], tuple[list[SearchHit], list[Make]]] = {}

    def outcome(self, reading: _Reading) -> _Outcome:
        words = reading.words
        if self.make is not None and self.make not in self.named_makes(words):
            words = (self.make.name, *words)
        # Typo matching only for a short text read whole, with no parsed word kept as text (the
        # other readings count only with an exact or prefix match, or leave words out).
        strict = bool(
            reading.kept
            or reading.keep_soft
            or reading.ignored
            or reading.dropped
            or len(words) > _MAX_TYPO_WORDS
        )
        key = (words, not strict)
        if key not in self._cache:
            self._cache[key] = self._search(words, typos=not strict)
        hits, makes = self._cache[key]
        lenient = not (reading.kept_count or reading.ignored)
        if not lenient and hits and hits[0].match_kind not in ("exact", "prefix"):
            return _Outcome(reading, [], [])  # a parsed word joins a name only to name it
        return _Outcome(reading, hits, makes)

    def _search(self, words: tuple[str, ...], *, typos: bool) -> tuple[list[SearchHit], list[Make]]:
        if not any(norm(word) for word in words):
            return [], []
        found = self.catalog.search(" ".join(words), limit=_SEARCH_LIMIT, typos=typos)
        if self.make is not None:
            found = [hit for hit in found if hit.make.id == self.make.id]
        models = [hit for hit in found if hit.model is not None]
        # Only a make was named ("toyota"), unless a model matches as well ("range rover").
        if (
            found
            and found[0].model is None
            and (not models or models[0].match_kind != found[0].match_kind)
        ):
            return [], [hit.make for hit in found if hit.model is None]
        if not models:
            return [], self.named_makes(words)
        return models, []

    def naming_runs(self, words: Sequence[str]) -> dict[int, tuple[Make, list[tuple[int, int]]]]:
        """Makes named by a run of one to three of the words (name, slug or alias), by make id,
        with the (start, end) of each run (within the first `_MAX_TEXT_WORDS` words)."""
        found: dict[int, tuple[Make, list[tuple[int, int]]]] = {}
        for start in range(min(len(words), _MAX_TEXT_WORDS)):
            for end in range(start + 1, min(len(words), start + 3) + 1):
                text = " ".join(words[start:end])
                if not any(ch.isalpha() for ch in text):
                    continue
                make = self.catalog.find_make(text)
                if make is not None:
                    found.setdefault(make.id, (make, []))[1].append((start, end))
        return found

    def only_makes(self, words: Sequence[str]) -> bool:
        """Do the words name a make and nothing else (`honda`, `land rover`)?"""
        covered: set[int] = set()
        for _, spans in self.naming_runs(words).values():
            for start, end in spans:
                covered.update(range(start, end))
        return len(covered) == len(words)

    def named_makes(self, words: Sequence[str]) -> list[Make]:
        return [make for make, _ in self.naming_runs(words).values()]

    def typo_within_make(self, reading: _Reading) -> _Outcome | None:
        """A misspelt model of a named make (`chevy camero`): whole-name similarity against that
        make's models only, with a lower cutoff than the catalog-wide typo search."""
        words = reading.words
        best: tuple[float, int, Model] | None = None
        runs = self.naming_runs(words)
        if self.make is not None:
            runs = {self.make.id: (self.make, [(0, 0)])} | {
                k: v for k, v in runs.items() if k == self.make.id
            }
        for make, spans in runs.values():
            choices = {m.key: m for m in self.catalog.models_of(make)}
            for start, end in spans:
                rest = norm("".join(words[:start] + words[end:]))
                if len(rest) < _MIN_TYPO_LENGTH:
                    continue
                match = process.extractOne(
                    rest, list(choices), scorer=fuzz.ratio, score_cutoff=_MAKE_TYPO_CUTOFF
                )
                if match is None:
                    continue
                model = choices[match[0]]
                candidate = (match[1], model.model_year_entries, model)
                if best is None or candidate[:2] > best[:2]:
                    best = candidate
        if best is None:
            return None
        model = best[2]
        hit = SearchHit(model.make, model, model.years, "fuzzy")
        return _Outcome(reading, [hit], [])


def _best(outcomes: Iterable[_Outcome]) -> _Outcome | None:
    best: _Outcome | None = None
    for outcome in outcomes:
        if best is None or outcome.order() < best.order():
            best = outcome
    return best


def _with_words_left_out(reading: _Reading, count: int) -> Iterable[_Reading]:
    """The reading without `count` of its words (any, in every combination)."""
    words = reading.words
    if len(words) <= count:
        return
    for left_out in itertools.combinations(range(len(words)), count):
        kept = tuple(word for i, word in enumerate(words) if i not in left_out)
        chars = sum(len(words[i]) for i in left_out)
        yield replace(reading, words=kept, dropped=count, dropped_chars=chars)


# -- resolve -----------------------------------------------------------------------------------


# The most words for which leaving one (or two) out is still tried.
_MAX_WORDS_TO_LEAVE_OUT: Final = {1: 8, 2: 6}


def _fallback(searcher: _Searcher, outcome: _Outcome, base: _Reading) -> _Outcome:
    """When no reading matched better than `contains`: a named make with the words around it
    as its model (exact or prefix), else a misspelt model of a named make, else the reading with
    one unknown word (two, from four words up) left out."""
    contains, fuzzy = MATCH_KINDS.index("contains"), MATCH_KINDS.index("fuzzy")
    if outcome.rank < contains:
        return outcome
    around = _around_makes(searcher, [base], models_alone=True)
    if around is not None:  # in a short text the other words were left out
        reading = replace(around.reading, dropped=around.reading.ignored, ignored=0)
        return _Outcome(reading, around.hits, around.make_only)
    full = outcome.reading if outcome.hits else base
    if outcome.rank >= fuzzy:
        typo = searcher.typo_within_make(base)
        if typo is not None:
            return typo
    for count in (1, 2):
        if count == 2 and len(full.words) < _MIN_WORDS_TO_LEAVE_TWO:
            break
        if len(full.words) > _MAX_WORDS_TO_LEAVE_OUT[count]:
            break  # bounded work: n (or n²/2) catalog searches must stay a few dozen
        lenient = _best(
            searcher.outcome(reading)
            for reading in _with_words_left_out(full, count)
            if not searcher.only_makes(reading.words)
        )
        if lenient is not None and lenient.rank < outcome.rank:
            outcome = lenient
        if outcome.rank < contains:
            break
    return outcome


def _around_makes(
    searcher: _Searcher, readings: Sequence[_Reading], *, models_alone: bool
) -> _Outcome | None:
    """The best reading of a named make with one to three words after it (or one or two before
    it) as the model; the other words are left out (`ignored`). With `models_alone`, in a text
    that names no make: one or two of its words that are exactly a model's name."""

    def windows(reading: _Reading) -> Iterable[tuple[int, int]]:
        words = reading.words
        runs = sorted({run for _, spans in searcher.naming_runs(words).values() for run in spans})
        if not runs and models_alone:
            for start in range(min(len(words), _MAX_MODEL_WORDS)):
                yield from ((start, start + size) for size in (2, 1))
        for start, end in runs[:_MAX_MAKE_RUNS]:
            yield from ((start, end + size) for size in range(1, _WINDOW_AFTER + 1))
            yield from ((start - size, end) for size in range(1, _WINDOW_BEFORE + 1))

    def readings_around() -> Iterable[_Reading]:
        for reading in readings:
            words = reading.words
            for first, last in windows(reading):
                window = words[first:last]
                if first < 0 or last > len(words) or searcher.only_makes(window):
                    continue  # "land rover": a make's name is no model
                yield replace(reading, words=tuple(window), ignored=len(words) - len(window))

    best = _best(searcher.outcome(window) for window in readings_around())
    if best is None or not best.hits:
        return None
    if not searcher.naming_runs(best.reading.words) and best.hits[0].match_kind != "exact":
        return None  # without a make, only a model's whole name counts
    return best


def _name_words(model: Model) -> list[str]:
    """The model's name as match keys of its words, a trailing `Class` dropped (`GLE-Class`)."""
    words = [key for word in re.split(r"[\s\-/]+", model.name) if (key := norm(word))]
    return words[:-1] if len(words) > 1 and words[-1] == "class" else words


def _same_vehicle(model: Model, other: Model) -> bool:
    """Are two catalog models of one make one vehicle under two names?

    `GLE` and `GLE-Class`; `R1` and `YZF-R1`, `GT-R` and `Skyline GT-R`, `3` and `Mazda3` (a
    name with a word of at least three letters before it); `GLE` and `GLE 350 …` (a name with a
    trim number after it); and the pairs of `_SAME_VEHICLE` (`Miata` and `MX-5`).
    """
    if model.make.id != other.make.id or model is other:
        return False
    mine, theirs = model.key, other.key  # match keys of the names
    if _SAME_VEHICLE.get(mine) == theirs or _SAME_VEHICLE.get(theirs) == mine:
        return True
    mine, theirs = mine.removesuffix("class"), theirs.removesuffix("class")
    if mine not in theirs and theirs not in mine:
        return False  # every relation below has one name within the other
    words, other_words = _name_words(model), _name_words(other)
    joined, other_joined = "".join(words), "".join(other_words)
    if joined == other_joined:
        return True
    short, long_name = sorted((joined, other_joined), key=len)
    extra = long_name[: len(long_name) - len(short)]
    if long_name.endswith(short) and extra.isalpha() and len(extra) >= _MIN_NICKNAME:
        return True
    short_words, long_words = sorted((words, other_words), key=len)
    rest = long_words[len(short_words) :]
    return long_words[: len(short_words)] == short_words and rest[0][:1].isdigit()


def _entry_with_year(catalog: Catalog, hit: SearchHit, year: int) -> SearchHit | None:
    """Another catalog entry of the chosen vehicle that has the asked year, if the chosen entry
    lacks it (the one with most model-year entries)."""
    assert hit.model is not None
    if year in hit.model.years:
        return None
    found = [
        other
        for other in catalog.models_of(hit.make)
        if year in other.years and _same_vehicle(hit.model, other)
    ]
    if not found:
        return None
    best = max(found, key=lambda m: (m.model_year_entries, -len(m.name)))
    return SearchHit(hit.make, best, best.years, hit.match_kind)


def _nearest_year(model: Model, year: int) -> int:
    return min(model.years, key=lambda y: (abs(y - year), -y))


def _choose(
    hits: list[SearchHit], named: set[int], year: int | None
) -> tuple[SearchHit, list[SearchHit]]:
    """The best model among the hits of the top match kind; returns it and the tied hits.

    Preference: a make named in the text (unless its model is a stray entry with under a quarter
    of the model-year entries of the tie's largest), then a model that exists in the asked year,
    then more model-year entries, then the catalog's order.
    """
    top_kind = hits[0].match_kind
    tied = [hit for hit in hits if hit.match_kind == top_kind]
    largest = max(_entries(hit) for hit in tied)

    def preference(item: tuple[int, SearchHit]) -> tuple[int, int, int, int]:
        position, hit = item
        assert hit.model is not None
        named_here = hit.make.id in named and _entries(hit) * _STRAY_SHARE >= largest
        return (
            0 if named_here else 1,
            0 if year is None or year in hit.model.years else 1,
            -_entries(hit),
            position,
        )

    chosen = min(enumerate(tied), key=preference)[1]
    return chosen, tied


def _named(searcher: _Searcher, outcome: _Outcome) -> set[int]:
    """Makes the reading names by words of their own: `rover` in `range rover` names Rover only
    if the words are not the model's name as well."""
    words = outcome.reading.words
    named: set[int] = set()
    for make_id, (_, spans) in searcher.naming_runs(words).items():
        for hit in outcome.hits:
            if hit.make.id != make_id or hit.model is None:
                continue
            if any(norm("".join(words[a:b])) not in hit.model.key for a, b in spans):
                named.add(make_id)
    return named


def _entries(hit: SearchHit) -> int:
    return hit.model.model_year_entries if hit.model is not None else 0


def _confidence(
    chosen: SearchHit,
    tied: list[SearchHit],
    named: set[int],
    *,
    dropped: bool,
    ignored: bool,
    year_fallback: bool,
) -> Confidence:
    rivals = [hit for hit in tied if hit is not chosen and (not named or hit.make.id in named)]
    if chosen.match_kind == "fuzzy" or dropped:
        return "low"
    if chosen.match_kind in ("token", "contains") and rivals:
        return "low"
    if (
        chosen.match_kind in ("exact", "prefix")
        and chosen.make.id in named
        and not rivals
        and not year_fallback
        and not ignored
    ):
        return "high"
    return "medium"


def _full_years(hit: SearchHit) -> SearchHit:
    assert hit.model is not None
    return SearchHit(hit.make, hit.model, hit.model.years, hit.match_kind)


def _candidates(chosen: SearchHit, hits: list[SearchHit]) -> list[SearchHit]:
    ordered = [chosen, *(hit for hit in hits if hit is not chosen)]
    seen: set[tuple[int, str]] = set()
    result: list[SearchHit] = []
    for hit in ordered:
        assert hit.model is not None
        key = (hit.make.id, hit.model.slug)
        if key not in seen:
            seen.add(key)
            result.append(_full_years(hit))
        if len(result) == MAX_CANDIDATES:
            break
    return result


def resolve(
    catalog: Catalog,
    query: str,
    *,
    year: int | None = None,
    make: str | None = None,
    model: str | None = None,
) -> Resolution:
    """Read a free-text description into a catalog vehicle and image parameters.

    `year` overrides a year in the text; `make` (name, slug or alias) restricts the search to that
    make; `model` names the model (with `make`: by name, slug or unique prefix). Raises
    `Unresolved` when no model matches.
    """
    parsed = _parse(query)
    make_arg: Make | None = None
    if make is not None and make.strip():
        make_arg = catalog.find_make(make.strip())
        if make_arg is None:
            raise Unresolved(query)
    searcher = _Searcher(catalog, make_arg)

    text_year = next((s.value for s in parsed.spans if s.kind == "year"), None)
    outcome: _Outcome | None = None
    if make_arg is not None and model is not None and model.strip():
        found = catalog.find_model(make_arg, model.strip())
        if found is not None:
            hit = SearchHit(make_arg, found, found.years, "exact")
            asked = year if year is not None else text_year
            assert asked is None or isinstance(asked, int)
            reading = _Reading((make_arg.name, found.name), asked)
            outcome = _Outcome(reading, [hit], [])
    if outcome is None:
        readings = list(_readings(parsed))
        if model is not None and model.strip():
            extra = tuple(model.split())
            readings = [
                _Reading((*r.words, *extra), r.year, r.kept, r.keep_soft) for r in readings
            ] + [_Reading(extra, r.year, r.kept, r.keep_soft) for r in readings[:1]]
        if len(readings[0].words) > _MAX_SEARCH_WORDS:
            # A long text: the vehicle is where a make is named; the rest is filler.
            plain = [r for r in readings if not r.kept and not r.keep_soft]
            around = _around_makes(searcher, plain, models_alone=False)
            outcome = around or _Outcome(readings[0], [], [])
        else:
            outcome = _best(searcher.outcome(reading) for reading in readings)
            assert outcome is not None
            outcome = _fallback(searcher, outcome, readings[0])
    if not outcome.hits:
        raise Unresolved(query, outcome.make_only or searcher.named_makes(outcome.reading.words))

    asked_year = year if year is not None else outcome.reading.year
    named = _named(searcher, outcome)
    if make_arg is not None:
        named.add(make_arg.id)
    chosen, tied = _choose(outcome.hits, named, asked_year)
    hits = outcome.hits
    if asked_year is not None:
        entry = _entry_with_year(catalog, chosen, asked_year)
        if entry is not None:  # the same vehicle under another catalog name has the year
            hits = [entry, *hits]
            chosen = entry
    assert chosen.model is not None
    vehicle_year = chosen.model.years[-1]
    year_fallback = False
    if asked_year is not None:
        vehicle_year = _nearest_year(chosen.model, asked_year)
        year_fallback = vehicle_year != asked_year
    confidence = _confidence(
        chosen,
        tied,
        named,
        dropped=outcome.reading.dropped > 0,
        ignored=outcome.reading.ignored > 0,
        year_fallback=year_fallback,
    )

    kept = outcome.reading.kept
    extracted = Extracted(
        year=asked_year,
        color=_as_str(_first_value(parsed, "color", kept)),
        view=_as_str(_first_value(parsed, "view", kept)),
        size=_as_str(_first_value(parsed, "size", kept)),
        width=_as_int(_first_value(parsed, "width", kept)),
        format=_as_str(_first_value(parsed, "format", kept)),
    )
    width_out = min(extracted.width, MAX_SIZE) if extracted.width is not None else None
    if width_out is not None and width_out < 1:
        width_out = None
    return Resolution(
        vehicle=catalog.vehicle(chosen.model, vehicle_year),
        view=extracted.view or DEFAULT_VIEW,
        color=extracted.color or DEFAULT_COLOR,
        size=extracted.size,
        width=width_out,
        format=extracted.format,
        candidates=_candidates(chosen, hits),
        confidence=confidence,
        extracted=extracted,
    )


def _first_value(parsed: _Parsed, kind: str, kept: frozenset[int]) -> str | int | None:
    """The value of the first span of `kind` not read as part of the model name ("gold" in
    "gold Honda Gold Wing" is a color once, a model word once)."""
    for index, span in enumerate(parsed.spans):
        if span.kind == kind and index not in kept:
            return span.value
    return None


def _as_str(value: str | int | None) -> str | None:
    return value if isinstance(value, str) else None


def _as_int(value: str | int | None) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
