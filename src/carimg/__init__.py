"""carimg: a self-hostable vehicle image service."""

__version__ = "0.1.0"
