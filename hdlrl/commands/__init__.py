"""Implementations of the CLI subcommands, one module each."""
