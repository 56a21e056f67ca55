"""Backends: tir (or partitioned relay functions) to code."""
