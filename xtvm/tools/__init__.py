"""Command-line drivers: argument parsing and exit codes, no compiler logic."""
