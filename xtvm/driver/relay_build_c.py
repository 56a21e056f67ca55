"""`relay.build(mod, target="c")`: a relay module compiled into C source plus its graph.

The graph and kernels are lowered as for the LLVM build (the CPU schedules), the tir passes
are the source targets' (no tir-vectorize: the C compiler vectorizes the loops marked
`omp simd`), and the C backend renders the kernels. One shared library holds the kernels,
the signature metadata `load_module` reads, their packed entries and the external codegens'
functions; `export_library` links the same sources with the graph and weights embedded.
TVM's `Runtime("crt", {"system-lib": True})` is accepted: the library is a shared library
either way.

    graph_json, lib, params = relay.build(mod, target="c", params=params)
    lib.get_source()                               # the C of the kernels
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from xtvm.backends.c.codegen import imported_sources, render_c
from xtvm.backends.packed import packed_source
from xtvm.backends.toolchain import link_shared
from xtvm.driver.relay_external import ExternalBuild
from xtvm.driver.relay_graph import graph_factory, graph_of, run_passes, split_kernels
from xtvm.ir.symbols import c_string_literal
from xtvm.passes.convert_te_to_tir import ConvertTeToTirPass
from xtvm.passes.tir_loop_partition import TirLoopPartitionPass
from xtvm.passes.tir_simplify import TirSimplifyPass
from xtvm.runtime.graph_executor import GraphExecutorFactory
from xtvm.runtime.module import (
    METADATA_SYMBOL,
    Module,
    load_library,
    metadata_json,
    signatures_of,
)

FLAGS = ("-O3", "-march=native", "-fopenmp", "-fPIC", "-std=gnu99")


def build_c_graph(
    module: ModuleOp,
    external: ExternalBuild | None,
    params: Mapping[str, Any] | None = None,
) -> GraphExecutorFactory:
    """Compile to C for the CPU (`relay.build(mod, "c")`): `module` is the relay module lowered
    to te with the CPU schedules, `external` its external codegens' functions, compiled."""
    main, kernels = split_kernels(module)
    run_passes(
        kernels,
        [ConvertTeToTirPass(), TirSimplifyPass(), TirLoopPartitionPass(), TirSimplifyPass()],
    )
    graph, constants = graph_of(main)
    signatures = signatures_of(kernels)
    status = set(signatures)  # the kernels return a status, external functions nothing
    libraries: tuple[str, ...] = ()
    if external is not None:
        signatures |= external.signatures
        libraries = tuple(external.library.libraries)
        symbols = {name: f.symbol for name, f in external.by_function.items()}
        for node in graph["nodes"]:
            if node["op"] == "tvm_op" and node["name"] in symbols:
                node["attrs"]["func_name"] = symbols[node["name"]]
    kernel_source = render_c(kernels)
    metadata = metadata_json(signatures, status)
    sources = [
        f"{kernel_source}\nconst char *{METADATA_SYMBOL} = {c_string_literal(metadata)};\n",
        *imported_sources(kernels),
        packed_source(signatures, status),
    ]

    def link(path: Path, extra: Sequence[Path] = ()) -> None:
        with tempfile.TemporaryDirectory(prefix="xtvm-c-graph-") as tmp:
            inputs: list[Path] = []
            for position, text in enumerate(sources):
                inputs.append(Path(tmp) / f"unit{position}.c")
                inputs[-1].write_text(text)
            if external is not None:
                inputs += external.library.write_objects(Path(tmp))
            link_shared(path, [*inputs, *extra], libraries, FLAGS)

    with tempfile.TemporaryDirectory(prefix="xtvm-c-graph-") as tmp:
        library_path = Path(tmp) / "module.so"
        link(library_path)
        loaded = load_library(library_path)  # dlopen keeps the mapping once the file is gone

    def get_source(fmt: str = "") -> str:
        if fmt not in ("c", "", "ll"):  # "ll", Module.get_source's default, as build_c
            raise ValueError(f"unknown source format '{fmt}' (known: c)")
        return kernel_source

    lib = Module(
        signatures,
        loaded._address,
        keepalive=loaded,
        source=get_source,
        exporter=link,
        type_key="c",
        status=loaded.status_functions,
        last_error=loaded._last_error,
    )

    return graph_factory(
        graph, constants, lib, params, link, kernels, None if external is None else external.library
    )
