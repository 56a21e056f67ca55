"""Dialects of xtvm: one module per dialect with its lark grammar fragment beside it."""
