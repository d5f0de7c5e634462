"""carimg.domain: the service's rules, free of HTTP and SQL."""
