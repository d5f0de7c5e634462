"""carimg.store: persistence (SQL tables and queries, migrations, the render cache)."""
