"""xtvm: a deep-learning compiler stack in the MLIR style, built on xDSL."""
