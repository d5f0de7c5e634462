"""`python -m carimg` runs the CLI."""

from carimg.cli import main

main()
