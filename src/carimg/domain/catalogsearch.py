"""Bounds on the work one catalog search does for a request.

The catalog reads each year-like word of a query as a possible year, one pass over every make and
model each, so a query of many year-like words held the event loop for long. Text from a
request is searched with at most `SEARCH_WORDS_MAX` words, at most `SEARCH_YEARS_MAX` of them
year-like: the public search (`q`) refuses more (400), and the searches a request makes on its
own (suggestions for a make or model not found) read only that much of the text.
"""

from __future__ import annotations

from carimg.catalog import norm
from carimg.domain.errors import InvalidParameter
from carimg.domain.limits import SEARCH_WORDS_MAX, SEARCH_YEARS_MAX


def _year_like(word: str) -> bool:
    key = norm(word)
    return len(key) == 4 and key.isdigit()


def bounded_text(text: str) -> str:
    """The first `SEARCH_WORDS_MAX` words of `text`, year-like ones past `SEARCH_YEARS_MAX`
    left out."""
    kept: list[str] = []
    years = 0
    for word in text.split():
        if len(kept) == SEARCH_WORDS_MAX:
            break
        if _year_like(word):
            years += 1
            if years > SEARCH_YEARS_MAX:
                continue
        kept.append(word)
    return " ".join(kept)


def check_query(text: str, parameter: str = "q") -> None:
    """400 for a search query over the bounds."""
    words = text.split()
    if len(words) > SEARCH_WORDS_MAX:
        raise InvalidParameter(
            parameter, f"'{parameter}' may have at most {SEARCH_WORDS_MAX} words."
        )
    if sum(map(_year_like, words)) > SEARCH_YEARS_MAX:
        raise InvalidParameter(
            parameter, f"'{parameter}' may name at most {SEARCH_YEARS_MAX} years."
        )
