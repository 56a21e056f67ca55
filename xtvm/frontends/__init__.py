"""Frontends: importers from model formats into relay."""
