"""Code generators: each takes tir (or a partitioned relay function) to an artifact."""
