"""Search over makes and models: tokens in any order, years, punctuation variants, make aliases.

Match kinds rank exact > prefix > token > contains > fuzzy. Fuzzy matching (rapidfuzz) runs only
when nothing matches lexically. Ranking is deterministic and popularity-neutral: within one match
kind, makes come before models, then shorter names, then alphabetical order.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from rapidfuzz import fuzz, process

from carimg.catalog._model import Make, Model
from carimg.catalog._text import norm, tokens
from carimg.years import MAX_YEAR, MIN_YEAR

MatchKind = Literal["exact", "prefix", "token", "contains", "fuzzy"]
MATCH_KINDS: Final[tuple[MatchKind, ...]] = ("exact", "prefix", "token", "contains", "fuzzy")
_EXACT, _PREFIX, _TOKEN, _CONTAINS, _FUZZY = range(5)

# Everyday names of makes, mapped to the make's match key.
MAKE_ALIASES: Final[dict[str, str]] = {
    "vw": "volkswagen",
    "chevy": "chevrolet",
    "merc": "mercedesbenz",
    "mercedes": "mercedesbenz",
    "benz": "mercedesbenz",
    "mb": "mercedesbenz",
    "alfa": "alfaromeo",
    "beemer": "bmw",
    "bimmer": "bmw",
    "harley": "harleydavidson",
    "rolls": "rollsroyce",
    "aston": "astonmartin",
    "lambo": "lamborghini",
    "landie": "landrover",
}

YEAR_RANGE: Final = range(MIN_YEAR, MAX_YEAR + 1)
_MAX_MAKE_SPAN = 4
_MIN_PREFIX = 2
_MIN_MAKE_PREFIX = 3
_MIN_CONTAINS = 3
_FUZZY_CUTOFF = 86.0
_MAKE_TYPO_CUTOFF = 80.0

# Hits found so far, by (make id, model slug or None): (rank, make, model).
_Found = dict[tuple[int, str | None], tuple[int, Make, Model | None]]


@dataclass(frozen=True, slots=True)
class _MakeModels:
    """One make's models, indexed for matching within the make."""

    sorted_keys: list[tuple[str, int]]
    haystack: str
    offsets: list[int]
    indexes: list[int]
    index_set: frozenset[int]


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result: a make, or a model of a make, with its years and how it matched."""

    make: Make
    model: Model | None
    years: tuple[int, ...]
    match_kind: MatchKind

    @property
    def kind(self) -> Literal["make", "model"]:
        return "make" if self.model is None else "model"


def _strength(hit: SearchHit) -> tuple[int, int]:
    """How good a reading's best hit is: its match kind, then a model over a bare make."""
    return MATCH_KINDS.index(hit.match_kind), 1 if hit.model is None else 0


def _model_tokens(model: Model) -> frozenset[str]:
    words = re.split(r"[\s\-/]+", model.name)
    return frozenset(filter(None, (*tokens(model.name), *(norm(w) for w in words))))


class SearchIndex:
    """In-memory indexes over the catalog, built once at load."""

    def __init__(self, makes: Sequence[Make], models: Sequence[Model]) -> None:
        self._makes_by_key: dict[str, list[Make]] = defaultdict(list)
        for make in makes:
            self._makes_by_key[make.key].append(make)
        for alias, key in MAKE_ALIASES.items():
            if key in self._makes_by_key and alias not in self._makes_by_key:
                self._makes_by_key[alias] = self._makes_by_key[key]
        self._make_keys = sorted(make.key for make in makes)

        self._models = list(models)
        self._models_by_make: dict[int, list[Model]] = defaultdict(list)
        self._models_by_key: dict[str, list[Model]] = defaultdict(list)
        self._models_by_full_key: dict[str, list[Model]] = defaultdict(list)
        self._models_by_token: dict[str, set[int]] = defaultdict(set)
        self._tokens: list[frozenset[str]] = []
        for index, model in enumerate(self._models):
            self._models_by_make[model.make.id].append(model)
            self._models_by_key[model.key].append(model)
            self._models_by_full_key[model.make.key + model.key].append(model)
            model_tokens = _model_tokens(model)
            self._tokens.append(model_tokens)
            for token in model_tokens:
                self._models_by_token[token].add(index)
        self._all_tokens = sorted(self._models_by_token)
        self._index_of = {id(model): index for index, model in enumerate(self._models)}
        self._sorted_model_keys = sorted((m.key, i) for i, m in enumerate(self._models))
        self._sorted_full_keys = sorted((m.make.key + m.key, i) for i, m in enumerate(self._models))
        self._haystack = "\n".join(model.key for model in self._models)
        self._offsets = [0]
        for model in self._models[:-1]:
            self._offsets.append(self._offsets[-1] + len(model.key) + 1)
        # Per make: its model keys sorted (exact and prefix matches by bisection) and joined
        # (contains matches by one scan), and its model indexes (token matches).
        self._make_index: dict[int, _MakeModels] = {}
        for make_id, make_models in self._models_by_make.items():
            indexes = [self._index_of[id(m)] for m in make_models]
            self._make_index[make_id] = _MakeModels(
                sorted((self._models[i].key, i) for i in indexes),
                "\n".join(self._models[i].key for i in indexes),
                list(
                    itertools.accumulate(
                        (len(self._models[i].key) + 1 for i in indexes[:-1]), initial=0
                    )
                ),
                indexes,
                frozenset(indexes),
            )
        self._by_name_length = {
            make_id: sorted(models, key=lambda m: (len(m.name), m.name.lower()))
            for make_id, models in self._models_by_make.items()
        }
        self._make_years = {
            make.id: tuple(sorted({y for m in self._models_by_make[make.id] for y in m.years}))
            for make in makes
        }
        # Model keys, then make+model keys: index modulo the model count finds the model.
        self._fuzzy_keys = [m.key for m in self._models] + [
            m.make.key + m.key for m in self._models
        ]
        self._make_key_choices = sorted(self._makes_by_key)

    # -- public -------------------------------------------------------------------------------

    def search(
        self, query: str, *, year: int | None = None, limit: int = 10, typos: bool = True
    ) -> list[SearchHit]:
        """Rank makes and models for free text; a year in the text filters like `year` does.

        `typos=False` skips typo matching (for callers that only use lexical matches).
        """
        readings = [(rest, y) for rest, y in self._year_readings(tokens(query), year) if rest]
        best: list[SearchHit] = []
        for fuzzy in (False, True) if typos else (False,):  # typos only when nothing matches
            for rest, year_filter in readings:
                hits = self._search_words(rest, year_filter, limit, fuzzy=fuzzy)
                if hits and (not best or _strength(hits[0]) < _strength(best[0])):
                    best = hits
                if best and _strength(best[0]) == (_EXACT, 0):
                    return best[:limit]  # nothing can beat an exact model
            if best:
                break
        return best[:limit]

    def makes_matching(self, word_keys: Sequence[str]) -> list[Make]:
        """Makes named exactly (by name, slug or alias) by a run of the given match keys."""
        found: dict[int, Make] = {}
        for make, rank, _ in self._make_readings(list(word_keys)):
            if rank == _EXACT:
                found.setdefault(make.id, make)
        return list(found.values())

    # -- readings of the query -----------------------------------------------------------------

    @staticmethod
    def _year_readings(
        words: list[str], year: int | None
    ) -> Iterable[tuple[list[str], int | None]]:
        """Each year-like word may be the year (last first); finally read every word as text."""
        for position in reversed(range(len(words))):
            word = words[position]
            if len(word) == 4 and word.isdigit() and int(word) in YEAR_RANGE:
                rest = words[:position] + words[position + 1 :]
                yield rest, year if year is not None else int(word)
        yield words, year

    def _make_readings(self, words: list[str]) -> list[tuple[Make, int, list[str]]]:
        """Every contiguous run of words that names a make exactly, or one word prefixing it."""
        readings: list[tuple[Make, int, list[str]]] = []
        for start in range(len(words)):
            for end in range(start + 1, min(len(words), start + _MAX_MAKE_SPAN) + 1):
                key = "".join(words[start:end])
                rest = words[:start] + words[end:]
                exact = self._makes_by_key.get(key, [])
                readings.extend((make, _EXACT, rest) for make in exact)
                if end == start + 1 and not exact and len(key) >= _MIN_MAKE_PREFIX:
                    for make in self._makes_with_prefix(key):
                        readings.append((make, _PREFIX, rest))
        return readings

    def _makes_with_prefix(self, key: str) -> list[Make]:
        start = bisect.bisect_left(self._make_keys, key)
        found: list[Make] = []
        for make_key in self._make_keys[start:]:
            if not make_key.startswith(key):
                break
            found.extend(self._makes_by_key[make_key])
        return found

    # -- matching ------------------------------------------------------------------------------

    def _search_words(
        self, words: list[str], year: int | None, limit: int, *, fuzzy: bool
    ) -> list[SearchHit]:
        found = self._fuzzy(words, year, limit) if fuzzy else self._lexical(words, year, limit)
        return [self._hit(rank, make, model, year) for rank, make, model in self._ranked(found)]

    def _lexical(self, words: list[str], year: int | None, limit: int) -> _Found:
        found: _Found = {}

        def offer(make: Make, model: Model | None, rank: int) -> None:
            if year is not None:
                years = model.years if model else self._make_years[make.id]
                if year not in years:
                    return
            key = (make.id, model.slug if model else None)
            if key not in found or rank < found[key][0]:
                found[key] = (rank, make, model)

        for make, make_rank, rest in self._make_readings(words):
            if not rest:
                offer(make, None, make_rank)
                # Only the make was named: its first models in ranking order are enough.
                for model in self._shortest_models(make, year, limit):
                    offer(make, model, max(make_rank, _TOKEN))
                continue
            for model, rank in self._match_within(rest, self._make_index[make.id]):
                offer(make, model, max(make_rank, rank))
        for model, rank in self._match_anywhere(words):
            offer(model.make, model, rank)
        return found

    def _fuzzy(self, words: list[str], year: int | None, limit: int) -> _Found:
        """Typos: first correct words that nearly name a make, then compare whole model names."""
        corrected = [self._nearest_make_key(word) for word in words]
        found = self._lexical(corrected, year, limit) if corrected != words else {}
        if not found:
            joined = "".join(words)
            for _, _, index in process.extract(
                joined, self._fuzzy_keys, scorer=fuzz.ratio, score_cutoff=_FUZZY_CUTOFF, limit=25
            ):
                model = self._models[index % len(self._models)]
                if year is None or year in model.years:
                    found.setdefault((model.make.id, model.slug), (_FUZZY, model.make, model))
        return {key: (_FUZZY, make, model) for key, (_, make, model) in found.items()}

    def _nearest_make_key(self, word: str) -> str:
        if len(word) < _MIN_MAKE_PREFIX or word in self._makes_by_key:
            return word
        match = process.extractOne(
            word, self._make_key_choices, scorer=fuzz.ratio, score_cutoff=_MAKE_TYPO_CUTOFF
        )
        return match[0] if match else word

    def _shortest_models(self, make: Make, year: int | None, limit: int) -> list[Model]:
        models = (m for m in self._by_name_length[make.id] if year is None or year in m.years)
        return list(itertools.islice(models, limit))

    def _match_within(
        self, words: list[str], make_models: _MakeModels
    ) -> Iterable[tuple[Model, int]]:
        """The make's models that match the words (a model may come more than once: the best
        kind counts)."""
        joined = "".join(words)
        sorted_keys = make_models.sorted_keys
        start = bisect.bisect_left(sorted_keys, (joined, -1))
        for key, index in itertools.islice(sorted_keys, start, None):
            if not key.startswith(joined):
                break
            if key == joined:
                yield self._models[index], _EXACT
            elif len(joined) >= _MIN_PREFIX:
                yield self._models[index], _PREFIX
        for index in sorted(self._token_matches(words) & make_models.index_set):
            yield self._models[index], _TOKEN
        if len(joined) >= _MIN_PREFIX:
            for match in re.finditer(re.escape(joined), make_models.haystack):
                position = bisect.bisect_right(make_models.offsets, match.start()) - 1
                yield self._models[make_models.indexes[position]], _CONTAINS

    def _token_matches(self, words: list[str]) -> set[int]:
        """Models where every word is one of the name's words, or starts one of them."""
        matches: set[int] | None = None
        for word in words:
            found = set(self._models_by_token.get(word, ()))
            if len(word) >= _MIN_PREFIX:
                start = bisect.bisect_left(self._all_tokens, word)
                for token in itertools.islice(self._all_tokens, start, None):
                    if not token.startswith(word):
                        break
                    found |= self._models_by_token[token]
            matches = found if matches is None else matches & found
            if not matches:
                return set()
        return matches or set()

    def _match_anywhere(self, words: list[str]) -> Iterable[tuple[Model, int]]:
        joined = "".join(words)
        for model in self._models_by_key.get(joined, []):
            yield model, _EXACT
        for model in self._models_by_full_key.get(joined, []):
            yield model, _EXACT
        if len(joined) >= _MIN_PREFIX:
            yield from self._keys_with_prefix(self._sorted_model_keys, joined)
            # "porsche91": a make name run into the start of a model name.
            if not self._makes_with_prefix(joined):
                yield from self._keys_with_prefix(self._sorted_full_keys, joined)
        candidates = set.intersection(*(self._models_by_token.get(w, set()) for w in words))
        for index in sorted(candidates):
            yield self._models[index], _TOKEN
        if len(joined) >= _MIN_CONTAINS:
            for match in re.finditer(re.escape(joined), self._haystack):
                index = bisect.bisect_right(self._offsets, match.start()) - 1
                yield self._models[index], _CONTAINS

    def _keys_with_prefix(
        self, sorted_keys: list[tuple[str, int]], prefix: str
    ) -> Iterable[tuple[Model, int]]:
        start = bisect.bisect_left(sorted_keys, (prefix, -1))
        for key, index in sorted_keys[start:]:
            if not key.startswith(prefix):
                break
            yield self._models[index], _PREFIX

    # -- results -------------------------------------------------------------------------------

    @staticmethod
    def _ranked(found: _Found) -> list[tuple[int, Make, Model | None]]:
        def order(item: tuple[int, Make, Model | None]) -> tuple[int, int, int, str, str]:
            rank, make, model = item
            name = model.name if model else ""
            return (rank, 0 if model is None else 1, len(name), make.name.lower(), name.lower())

        return sorted(found.values(), key=order)

    def _hit(self, rank: int, make: Make, model: Model | None, year: int | None) -> SearchHit:
        years = (
            (year,) if year is not None else (model.years if model else self._make_years[make.id])
        )
        return SearchHit(make=make, model=model, years=years, match_kind=MATCH_KINDS[rank])
