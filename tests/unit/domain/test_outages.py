"""Every outage of a dependency is a 503 that says when to retry, the ones the domain does not
name too."""

from __future__ import annotations

from carimg.domain.outages import unavailable
from carimg.store.outage import DependencyUnavailable


def test_an_outage_of_an_unnamed_dependency_is_a_503_with_retry_after() -> None:
    error = unavailable(DependencyUnavailable("some new dependency"))
    assert error.status == 503
    assert error.headers == {"Retry-After": "5"}
