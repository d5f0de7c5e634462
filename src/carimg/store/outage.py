"""A dependency outside the process that does not answer (Redis, the object store, an identity
provider): each store of one raises a subclass of `DependencyUnavailable`, so the domain turns
every such outage into a 503 the same way (`carimg.domain.outages`)."""

from __future__ import annotations


class DependencyUnavailable(RuntimeError):
    """The dependency did not answer: what needed it was not done."""
