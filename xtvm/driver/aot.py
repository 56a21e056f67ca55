"""Ahead-of-time deployment: a `relay.build` factory as a shared library with a C API.

`export_aot(factory, "model.so")` writes `model.so` and `model.h`. The library holds the
kernels' object code, the weights (one 64-byte aligned blob in the format of
`xtvm.runtime.params`, streamed from the arrays to a file the assembler embeds with `.incbin`)
and a generated C runner that calls the kernels in graph order:

    int xtvm_model_run(const void *const *inputs, void *const *outputs);  /* 0: success */
    int xtvm_model_num_inputs(void);
    int xtvm_model_num_outputs(void);

`xtvm_model_metadata` (a JSON string: `{"inputs": [{"name", "dtype", "shape"}], "outputs": [...]}`)
describes them to runtimes without the header (the C device runtime's RPC server).
Inputs and outputs are the caller's row-major buffers (in the order of the header's
`XTVM_MODEL_INPUT_<i>_*` / `XTVM_MODEL_OUTPUT_<i>_*` macros: name, dtype, ndim, shape, size);
intermediates live in one static arena laid out by the graph executor's memory plan, so a run
is not reentrant (one call at a time per process). Functions of external codegens (BYOC) are
called like kernels; their objects and `-l` libraries are linked into the library.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from xtvm.backends.llvm.compile import CompiledLLVM
from xtvm.backends.packed import write_packed
from xtvm.backends.toolchain import link_shared
from xtvm.ir.symbols import c_string_literal, symbol_error
from xtvm.runtime.graph_executor import NOP, entry_bytes, plan_memory
from xtvm.runtime.module import LAST_ERROR_SYMBOL, MODEL_METADATA_SYMBOL, Param, signatures_of
from xtvm.runtime.params import assembly_string, layout, save_params
from xtvm.runtime.threads import POOL_SOURCE

ALIGN = 64
WEIGHTS_SYMBOL = "xtvm_model_weights"
C_TYPES = {
    "float32": "float",
    "float64": "double",
    "int64": "int64_t",
    "int32": "int32_t",
    "int16": "int16_t",
    "int8": "int8_t",
    "uint8": "uint8_t",
    "bool": "bool",
}


class AOTError(RuntimeError):
    """The factory cannot be written as an AOT library, or linking it failed."""


@dataclass(frozen=True)
class Tensor:
    """An input or output of the model as the header describes it."""

    name: str
    dtype: str
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))


def align(value: int, alignment: int = ALIGN) -> int:
    return (value + alignment - 1) // alignment * alignment


def generate(
    graph: Mapping[str, Any],
    signatures: Mapping[str, list[Param]],
    params: Mapping[str, np.ndarray],
    output_names: Sequence[str] | None = None,
    status: Collection[str] = (),
) -> tuple[str, str, dict[str, np.ndarray]]:
    """The runner C source, the header and the weights of a graph, in the order of the blob
    (`xtvm.runtime.params.save_params` writes it; the runner addresses it by `layout`).

    Outputs are named by `output_names` where given (the graph does not keep names), else
    `output0`, `output1`, ... The kernels named in `status` return one (the LLVM backend's
    ABI): a failure stops the run, which returns 1.
    """
    nodes = graph["nodes"]
    row_ptr = graph["node_row_ptr"]
    shapes = [tuple(int(d) for d in s) for s in graph["attrs"]["shape"][1]]
    dtypes = graph["attrs"]["dltype"][1]
    plan = plan_memory(graph)
    heads = [row_ptr[n] + i for n, i, _ in graph["heads"]]

    input_nodes = [n for n in graph["arg_nodes"] if nodes[n]["name"] not in params]
    weight_names = [nodes[n]["name"] for n in graph["arg_nodes"] if nodes[n]["name"] in params]
    weights = {name: params[name] for name in weight_names}
    _, offsets, weight_bytes = layout(weights)

    # A C expression for the buffer of each entry.
    where: dict[int, str] = {}
    for k, nid in enumerate(input_nodes):
        where[row_ptr[nid]] = f"(void *)inputs[{k}]"
    for nid in graph["arg_nodes"]:
        name, eid = nodes[nid]["name"], row_ptr[nid]
        if name not in offsets:
            continue
        value = params[name]
        if tuple(value.shape) != shapes[eid] or value.dtype.name != dtypes[eid]:
            raise AOTError(f"param '{name}' does not match the graph's {dtypes[eid]}{shapes[eid]}")
        where[eid] = f"(void *)({WEIGHTS_SYMBOL} + {offsets[name]})"
    copies: list[tuple[int, int]] = []  # (output index, entry) copied after the run
    for k, eid in enumerate(heads):
        if eid in where:
            copies.append((k, eid))
        else:
            where[eid] = f"outputs[{k}]"
    # Only storages of intermediates go in the arena (inputs, weights and outputs have their own).
    storage_offsets: dict[int, int] = {}
    arena = 0
    for eid, sid in enumerate(plan.storage_ids):
        if eid in where:
            continue
        if sid not in storage_offsets:
            storage_offsets[sid] = arena
            arena += align(plan.storage_bytes[sid])
        where[eid] = f"(void *)(arena + {storage_offsets[sid]})"

    declarations: list[str] = []
    declared: set[str] = set()
    calls: list[str] = []
    for nid, node in enumerate(nodes):
        if node["op"] != "tvm_op":
            continue
        fname = node["attrs"]["func_name"]
        if fname == NOP:  # the output shares its input's storage, or is an output buffer
            (n, i, _), out = node["inputs"][0], row_ptr[nid]
            if where[out] != where[row_ptr[n] + i]:
                size = entry_bytes(list(shapes[out]), dtypes[out])
                calls.append(f"  memcpy({where[out]}, {where[row_ptr[n] + i]}, {size});")
            continue
        signature = signatures.get(fname)
        if signature is None:
            raise AOTError(f"kernel '{fname}' is not in the factory's kernels")
        problem = symbol_error(fname, "kernel")
        if problem is not None:
            raise AOTError(problem)
        entries = [row_ptr[n] + i for n, i, _ in node["inputs"]]
        entries += list(range(row_ptr[nid], row_ptr[nid + 1]))
        if len(entries) != len(signature) or any(p.shape is None for p in signature):
            raise AOTError(f"kernel '{fname}' takes other arguments than its graph node passes")
        dynamic = [
            str(actual)
            for param, eid in zip(signature, entries, strict=True)
            for d, actual in zip(param.shape or (), shapes[eid], strict=True)
            if d is None
        ]
        if fname not in declared:
            declared.add(fname)
            types = ["void *"] * len(signature) + ["int64_t"] * len(dynamic)
            result = "int32_t" if fname in status else "void"
            declarations.append(f"extern {result} {fname}({', '.join(types)});")
        args = [where[e] for e in entries] + [f"(int64_t){d}" for d in dynamic]
        call = f"{fname}({', '.join(args)})"
        calls.append(f"  if ({call} != 0) return 1;" if fname in status else f"  {call};")
    for k, eid in copies:
        calls.append(
            f"  memcpy(outputs[{k}], {where[eid]}, {entry_bytes(list(shapes[eid]), dtypes[eid])});"
        )

    inputs = [Tensor(nodes[n]["name"], dtypes[row_ptr[n]], shapes[row_ptr[n]]) for n in input_nodes]
    names = list(output_names or [])
    if len(names) != len(heads):
        names = [f"output{k}" for k in range(len(heads))]
    outputs = [Tensor(names[k], dtypes[e], shapes[e]) for k, e in enumerate(heads)]
    metadata = {
        kind: [{"name": t.name, "dtype": t.dtype, "shape": list(t.shape)} for t in tensors]
        for kind, tensors in (("inputs", inputs), ("outputs", outputs))
    }
    described = c_string_literal(json.dumps(metadata))
    runner = "\n".join(
        [
            "/* Generated by xtvm.driver.aot: runs the model's kernels in graph order. */",
            "#include <stdbool.h>",
            "#include <stdint.h>",
            "#include <string.h>",
            "",
            f'extern const uint8_t {WEIGHTS_SYMBOL}[] __attribute__((visibility("hidden")));',
            f"static uint8_t arena[{max(arena, ALIGN)}] __attribute__((aligned({ALIGN})));",
            *declarations,
            "",
            f"const char *const {MODEL_METADATA_SYMBOL} = {described};",
            f"int xtvm_model_num_inputs(void) {{ return {len(inputs)}; }}",
            f"int xtvm_model_num_outputs(void) {{ return {len(outputs)}; }}",
            "",
            "int xtvm_model_run(const void *const *inputs, void *const *outputs) {",
            "  if (!inputs || !outputs) return -1;",
            *(f"  if (!inputs[{k}]) return -1;" for k in range(len(inputs))),
            *(f"  if (!outputs[{k}]) return -1;" for k in range(len(outputs))),
            *calls,
            "  (void)arena;",
            "  return 0;",
            "}",
            "",
        ]
    )
    return runner, header(inputs, outputs, weight_bytes, arena), weights


def header(inputs: list[Tensor], outputs: list[Tensor], weight_bytes: int, arena: int) -> str:
    """`model.h`: the C API and one macro set per input and output."""
    lines = [
        "/* Generated by xtvm.driver.aot: the C API of an AOT-compiled model. */",
        "#ifndef XTVM_MODEL_H",
        "#define XTVM_MODEL_H",
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
        f"#define XTVM_MODEL_NUM_INPUTS {len(inputs)}",
        f"#define XTVM_MODEL_NUM_OUTPUTS {len(outputs)}",
        f"#define XTVM_MODEL_WEIGHT_BYTES {weight_bytes}",
        f"#define XTVM_MODEL_ARENA_BYTES {arena}",
        "",
    ]
    for kind, tensors in (("INPUT", inputs), ("OUTPUT", outputs)):
        for k, t in enumerate(tensors):
            p = f"XTVM_MODEL_{kind}_{k}"
            lines += [
                f"#define {p}_NAME {c_string_literal(t.name)}",
                f"#define {p}_DTYPE {c_string_literal(t.dtype)}",
                f"#define {p}_CTYPE {C_TYPES.get(t.dtype, 'uint8_t')}",
                f"#define {p}_NDIM {len(t.shape)}",
                f"#define {p}_SHAPE {{{', '.join(str(d) for d in t.shape) or '1'}}}",
                f"#define {p}_SIZE {t.size}",
                f"#define {p}_BYTES {t.size * np.dtype(t.dtype).itemsize}",
                "",
            ]
    lines += [
        "/* The number of inputs and outputs. */",
        "int xtvm_model_num_inputs(void);",
        "int xtvm_model_num_outputs(void);",
        "",
        "/* Run the model: inputs[i] and outputs[i] are row-major buffers of the shapes above.",
        "   Returns 0 on success, 1 when a kernel failed (out of memory; the message is",
        "   xtvm_last_error()'s). Not reentrant: intermediates live in one static arena. */",
        "int xtvm_model_run(const void *const *inputs, void *const *outputs);",
        f"const char *{LAST_ERROR_SYMBOL}(void);",
        "",
        "#ifdef __cplusplus",
        "}",
        "#endif",
        "",
        "#endif /* XTVM_MODEL_H */",
        "",
    ]
    return "\n".join(lines)


def weights_assembly(blob_path: Path) -> str:
    """A `.S` file embedding the weights blob as the hidden symbol `xtvm_model_weights`."""
    return "\n".join(
        [
            '\t.section .rodata.xtvm_weights,"a"',
            f"\t.balign {ALIGN}",
            f"\t.globl {WEIGHTS_SYMBOL}",
            f"\t.hidden {WEIGHTS_SYMBOL}",
            f"\t.type {WEIGHTS_SYMBOL}, %object",  # `%`: `@` starts a comment on arm
            f"{WEIGHTS_SYMBOL}:",
            f"\t.incbin {assembly_string(blob_path)}",
            "\t.byte 0",  # never empty
            f"\t.size {WEIGHTS_SYMBOL}, . - {WEIGHTS_SYMBOL}",
            '\t.section .note.GNU-stack,"",%progbits',
            "",
        ]
    )


def kernel_object(factory: Any) -> bytes:
    """The object code of the factory's kernels (compiled again from its tir if need be)."""
    compiled = getattr(factory.lib, "_keepalive", None)
    if hasattr(compiled, "object_code"):
        return compiled.object_code()
    if factory.kernels is None:
        raise AOTError("the factory keeps neither compiled kernels nor their tir")
    from xtvm.backends.llvm.compile import compile_module

    return compile_module(factory.kernels, "llvm").object_code()


def export_aot(
    factory: Any,
    path: str | Path,
    header_path: str | Path | None = None,
    output_names: Sequence[str] | None = None,
) -> Path:
    """Write `path` (a shared library with the C API) and its header (default: `path`.h).

    Returns the header's path.
    """
    path = Path(path)
    header_file = Path(header_path) if header_path else path.with_suffix(".h")
    graph = json.loads(factory.graph_json)
    if factory.kernels is not None:
        signatures = signatures_of(factory.kernels)
        status: Collection[str] = signatures.keys()
    else:
        signatures = factory.lib.signatures
        status = factory.lib.status_functions
    # Functions of external codegens (BYOC): their objects and libraries are linked in too.
    external = getattr(factory, "external", None)
    if external is not None:
        signatures = {**signatures, **external.signatures}
    params = {k: np.asarray(v) for k, v in factory.params.items()}
    runner, header_text, weights = generate(graph, signatures, params, output_names, status)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_dir = Path(tmp)
        (tmp_dir / "kernels.o").write_bytes(kernel_object(factory))
        # The kernels' packed entries, for runtimes that call them one by one (the C one).
        compiled = getattr(factory.lib, "_keepalive", None)
        metadata = compiled.metadata if isinstance(compiled, CompiledLLVM) else None
        packed = write_packed(tmp_dir, metadata)
        (tmp_dir / "runner.c").write_text(runner)
        save_params(tmp_dir / "weights.bin", weights)
        (tmp_dir / "weights.S").write_text(weights_assembly(tmp_dir / "weights.bin"))
        objects = external.write_objects(tmp_dir) if external is not None else []
        inputs = [tmp_dir / "runner.c", tmp_dir / "weights.S", tmp_dir / "kernels.o", *objects]
        inputs += [*packed, POOL_SOURCE]  # the thread pool its parallel loops run on
        libraries = external.libraries if external is not None else ()
        flags = ("-O2", "-fPIC", "-pthread")
        link_shared(path, inputs, libraries, flags, AOTError)
    header_file.write_text(header_text)
    return header_file
