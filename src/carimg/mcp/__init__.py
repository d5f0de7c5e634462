"""The agent endpoint: carimg's tools over the Model Context Protocol.

`tools.py` defines the tools once (names, schemas, descriptions) over a `ToolBackend`;
`domain_backend.py` implements it on the domain services for the remote endpoint at `/api/mcp`
(`endpoint.py`), and the command-line client implements it over HTTP for `carimg mcp`.
"""
