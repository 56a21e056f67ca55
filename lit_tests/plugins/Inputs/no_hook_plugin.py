"""A plugin file that forgets to define `xtvm_plugin(registry)`; plugin.mlir expects an error."""

LOADED = True
