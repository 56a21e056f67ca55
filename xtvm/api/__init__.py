"""TVM-style Python faces over the dialects."""
