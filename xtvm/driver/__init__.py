"""The compile pipelines: `lower` and `build` of te schedules (build.py), `relay.build` for the
CPU (relay_build.py) and for CUDA (relay_build_cuda.py), and the AOT C library (aot.py).

The pass lists per target live here; the Python API (xtvm/api) calls these with its module
wrappers, which the pipelines accept by their `xdsl` module (`relay_build.ModuleLike`).
"""
