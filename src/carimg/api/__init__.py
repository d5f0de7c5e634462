"""carimg.api: the versioned HTTP API (parse, call the domain, shape responses)."""
