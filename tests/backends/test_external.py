"""External codegens (BYOC): partitioned functions compiled by their codegen and run by the graph
executor, an exported library and an AOT C program, against the all-CPU build and the relay
interpreter; the codegen registry and its errors."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func

import xtvm as tvm
from xtvm import relay
from xtvm.backends.external import (
    ExternalFunction,
    get_codegen,
    register_codegen,
    registered_codegens,
)
from xtvm.backends.external.ccompiler import (
    CCOMPILER_OPS,
    offload_to_ccompiler,
    reset_ccompiler_ops,
)
from xtvm.contrib import graph_executor
from xtvm.dialects.registry import default_context
from xtvm.driver.aot import export_aot
from xtvm.driver.relay_build import BuildError
from xtvm.runtime.graph_executor import load_factory
from xtvm.runtime.loader import load_module
from xtvm.runtime.module import Param
from xtvm.runtime.registry import get_global_func
from xtvm.testing.onnx_models import light_model
from xtvm.testing.relay import interpret, run_factory

CC = os.environ.get("CC", "gcc")
RNG = np.random.default_rng(7)

pytestmark = pytest.mark.skipif(shutil.which(CC) is None, reason=f"no C compiler '{CC}'")


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype("float32")


def partition(mod: tvm.IRModule, *targets: str) -> tvm.IRModule:
    seq = tvm.transform.Sequential(
        [
            relay.transform.AnnotateTarget(list(targets)),
            relay.transform.MergeCompilerRegions(),
            relay.transform.PartitionGraph(),
        ]
    )
    return seq(mod)


def external_functions(mod: tvm.IRModule) -> list[str]:
    return [
        f.sym_name.data
        for f in mod.xdsl.ops
        if isinstance(f, func.FuncOp) and "compiler" in f.attributes
    ]


@pytest.fixture
def ccompiler_ops() -> Iterator[None]:
    """Restores ccompiler's default op table (add, subtract, multiply) after the test."""
    yield
    reset_ccompiler_ops()


def chain() -> tvm.IRModule:
    x, y = relay.var("x", shape=(2, 3)), relay.var("y", shape=(2, 3))
    a = relay.add(x, y)
    body = relay.tanh(relay.multiply(relay.subtract(a, y), a))
    return tvm.IRModule.from_expr(relay.Function([x, y], body))


def test_add_subtract_multiply_chain_runs_in_c() -> None:
    mod = chain()
    partitioned = partition(mod, "ccompiler")
    assert external_functions(partitioned) == ["tvmgen_default_ccompiler_main_0"]
    factory = relay.build(partitioned, target="llvm")
    x, y = rand(2, 3), rand(2, 3)
    (got,) = run_factory(factory, x=x, y=y)
    (cpu,) = run_factory(relay.build(mod, target="llvm"), x=x, y=y)
    np.testing.assert_allclose(got, cpu, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, interpret(mod, {}, x, y)[0], rtol=1e-5, atol=1e-6)
    # The tanh (unsupported by the default table) stays on the host as an LLVM kernel.
    lib = factory.get_lib()
    (external,) = lib.imported_modules
    assert external.type_key == "external"
    assert sorted(external.signatures) == ["tvmgen_default_ccompiler_main_0"]
    assert any("tanh" in name for name in lib.signatures)
    source = external.get_source()
    assert "void tvmgen_default_ccompiler_main_0(void *in0, void *in1, void *out0)" in source
    assert "static int32_t fused_add_subtract_multiply(" in source
    assert lib["tvmgen_default_ccompiler_main_0"].params == [
        Param("x", "float32", (2, 3)),
        Param("y", "float32", (2, 3)),
        Param("out0", "float32", (2, 3)),
    ]


def conv_bn_relu() -> tuple[tvm.IRModule, dict[str, np.ndarray]]:
    x = relay.var("x", shape=(1, 3, 10, 9))
    names = ["w", "gamma", "beta", "mean", "var", "w2"]
    shapes = [(8, 3, 3, 3), (8,), (8,), (8,), (8,), (4, 8, 1, 1)]
    ws = {n: relay.var(n, shape=s) for n, s in zip(names, shapes, strict=True)}
    y = relay.nn.conv2d(x, ws["w"], padding=(1, 1))
    y = relay.nn.batch_norm(y, ws["gamma"], ws["beta"], ws["mean"], ws["var"])[0]
    y = relay.nn.relu(y)
    out = relay.sigmoid(relay.nn.conv2d(y, ws["w2"]))  # conv2d, sigmoid: on the host
    mod = tvm.IRModule.from_expr(relay.Function([x, *ws.values()], out))
    params = {n: rand(*s) for n, s in zip(names, shapes, strict=True)}
    params["var"] = np.abs(params["var"]) + 0.5
    return mod, params


def test_conv2d_batch_norm_relu_offloaded(ccompiler_ops: None) -> None:
    mod, params = conv_bn_relu()
    offload_to_ccompiler("nn.conv2d", "nn.batch_norm", "nn.relu")
    partitioned = partition(mod, "ccompiler")
    reset_ccompiler_ops()
    (name,) = external_functions(partitioned)
    main = partitioned.xdsl.ops.first
    assert isinstance(main, func.FuncOp)  # the sigmoid, unclaimed, stays on the host
    assert [op.name for op in main.body.block.ops] == ["func.call", "relay.sigmoid", "func.return"]
    x = rand(1, 3, 10, 9)
    expected = interpret(mod, {}, x, *params.values())[0]
    factory = relay.build(partitioned, target="llvm", params=params)
    (got,) = run_factory(factory, x=x)
    (cpu,) = run_factory(relay.build(mod, target="llvm", params=params), x=x)
    np.testing.assert_allclose(got, cpu, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    assert name in factory.get_lib().imported_modules[0].signatures


def test_every_op_with_a_strategy_can_be_offloaded(ccompiler_ops: None) -> None:
    mod, params = conv_bn_relu()
    offload_to_ccompiler()
    partitioned = partition(mod, "ccompiler")
    main = partitioned.xdsl.ops.first
    assert isinstance(main, func.FuncOp)
    assert [op.name for op in main.body.block.ops] == ["func.call", "func.return"]
    x = rand(1, 3, 10, 9)
    (got,) = run_factory(relay.build(partitioned, params=params), x=x)
    np.testing.assert_allclose(
        got, interpret(mod, {}, x, *params.values())[0], rtol=1e-4, atol=1e-5
    )
    assert "nn.conv2d" in CCOMPILER_OPS and "nn.softmax" in CCOMPILER_OPS
    with pytest.raises(ValueError, match=r"cannot lower no\.such"):
        offload_to_ccompiler("no.such")


def test_constants_and_two_outputs_of_one_region(ccompiler_ops: None) -> None:
    """Weights bound before partitioning become static arrays of the C; the region's two
    outputs (one read by the host, one returned) are written in place."""
    x = relay.var("x", shape=(1, 2, 5, 5))
    w = relay.const(rand(4, 2, 3, 3))
    c = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    m = relay.multiply(c, relay.const(rand(1, 4, 1, 1)))
    body = relay.Tuple([relay.exp(c), m])
    mod = tvm.IRModule.from_expr(relay.Function([x], body))
    offload_to_ccompiler("nn.conv2d", "nn.relu")
    partitioned = partition(mod, "ccompiler")
    factory = relay.build(partitioned)
    source = factory.get_lib().imported_modules[0].get_source()
    assert "static const unsigned char const0[" in source
    xv = rand(1, 2, 5, 5)
    got = run_factory(factory, x=xv)
    for g, e in zip(got, interpret(mod, {}, xv), strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


def test_light_squeezenet_with_conv2d_and_relu_in_c(ccompiler_ops: None) -> None:
    from xtvm.api.relay.frontend import from_onnx

    model, data, x = light_model("squeezenet", RNG)
    mod, params = from_onnx(model)
    offload_to_ccompiler("nn.conv2d", "nn.relu")
    partitioned = partition(mod, "ccompiler")
    names = external_functions(partitioned)
    assert len(names) > 5
    host_ops = {op.name for op in partitioned.xdsl.ops.first.walk()}  # type: ignore[union-attr]
    assert "relay.nn.conv2d" not in host_ops and "relay.concatenate" in host_ops
    factory = relay.build(partitioned, params=params)
    (got,) = run_factory(factory, **{data: x})
    (cpu,) = run_factory(relay.build(mod, params=params), **{data: x})
    np.testing.assert_allclose(got, cpu, rtol=1e-4, atol=1e-5 * np.abs(cpu).max())
    assert sorted(factory.get_lib().imported_modules[0].signatures) == sorted(names)


def test_export_library_and_load_module_round_trip(tmp_path: Path, ccompiler_ops: None) -> None:
    mod, params = conv_bn_relu()
    offload_to_ccompiler("nn.conv2d", "nn.batch_norm", "nn.relu")
    factory = relay.build(partition(mod, "ccompiler"), params=params)
    path = tmp_path / "net.so"
    factory.export_library(path)
    x = rand(1, 3, 10, 9)
    (expected,) = run_factory(factory, x=x)
    (got,) = run_factory(load_factory(path), x=x)
    np.testing.assert_array_equal(got, expected)
    lib = load_module(path)  # the one library holds the LLVM kernels and the C functions
    assert "tvmgen_default_ccompiler_main_0" in lib
    module = graph_executor.GraphModule(graph_executor.create(factory.graph_json, lib, tvm.cpu()))
    module.set_input(**factory.params)
    module.run(x=x)
    np.testing.assert_array_equal(module.get_output(0).numpy(), expected)


AOT_MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include "model.h"

int main(int argc, char **argv) {
  float x[XTVM_MODEL_INPUT_0_SIZE], y[XTVM_MODEL_INPUT_1_SIZE], out[XTVM_MODEL_OUTPUT_0_SIZE];
  FILE *f = fopen(argv[1], "rb");
  if (!f || fread(x, 1, sizeof x, f) != sizeof x || fread(y, 1, sizeof y, f) != sizeof y) return 2;
  fclose(f);
  const void *inputs[] = {x, y};
  void *outputs[] = {out};
  if (xtvm_model_run(inputs, outputs) != 0) return 3;
  f = fopen(argv[2], "wb");
  if (!f || fwrite(out, 1, sizeof out, f) != sizeof out) return 4;
  fclose(f);
  return 0;
}
"""


def test_aot_c_program_runs_a_partitioned_model(tmp_path: Path) -> None:
    mod = chain()
    export_aot(relay.build(partition(mod, "ccompiler")), tmp_path / "model.so")
    (tmp_path / "main.c").write_text(AOT_MAIN)
    subprocess.run(
        [CC, "-std=c99", "-Wall", "-Werror", "-O2", "-I", str(tmp_path), str(tmp_path / "main.c"),
         "-o", str(tmp_path / "main"), str(tmp_path / "model.so"), f"-Wl,-rpath,{tmp_path}"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    x, y = rand(2, 3), rand(2, 3)
    np.concatenate([x.ravel(), y.ravel()]).tofile(tmp_path / "in.bin")
    result = subprocess.run(
        [str(tmp_path / "main"), str(tmp_path / "in.bin"), str(tmp_path / "out.bin")],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    got = np.fromfile(tmp_path / "out.bin", dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(got, interpret(mod, {}, x, y)[0], rtol=1e-5, atol=1e-6)


def test_xtvm_compile_links_external_functions_into_the_aot_library(tmp_path: Path) -> None:
    from xtvm.ir.printer import print_ir
    from xtvm.tools import compile as xtvm_compile

    source = tmp_path / "model.mlir"
    source.write_text(print_ir(partition(chain(), "ccompiler").xdsl, default_context()))
    library = tmp_path / "model.so"
    assert xtvm_compile.main([str(source), "--emit", "aot", "-o", str(library)]) == 0
    symbols = subprocess.run(["nm", "-D", str(library)], capture_output=True, text=True).stdout
    assert "T tvmgen_default_ccompiler_main_0" in symbols


# ---------------------------------------------------------------------------------------------
# The registry


UNKNOWN = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @tvmgen_default_nosuch_main_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
func.func private @tvmgen_default_nosuch_main_0(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {compiler = "nosuch", global_symbol = "tvmgen_default_nosuch_main_0"} {
  %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}
"""


def test_unknown_codegen_is_a_build_error() -> None:
    module = default_context().parse(UNKNOWN)
    with pytest.raises(BuildError, match=r"@tvmgen_default_nosuch_main_0 \(compiler = 'nosuch'\)"):
        relay.build(module, target="llvm")
    with pytest.raises(BuildError, match=r"codegens: .*ccompiler"):
        relay.build(module, target="llvm")


def test_ccompiler_is_the_global_function_relay_ext_ccompiler() -> None:
    codegen = get_codegen("ccompiler")
    assert get_global_func("relay.ext.ccompiler") is codegen
    assert "ccompiler" in registered_codegens()


@pytest.mark.usefixtures("preserve_registries")  # registers a codegen
def test_registered_codegen_with_extra_sources_and_includes(tmp_path: Path) -> None:
    """A codegen shipping a runtime (a C file and its header) used by the generated code."""
    (tmp_path / "twice.h").write_text("void twice(const float *x, float *y, int n);\n")
    (tmp_path / "twice.c").write_text(
        '#include "twice.h"\nvoid twice(const float *x, float *y, int n) '
        "{ for (int i = 0; i < n; ++i) y[i] = 2 * x[i]; }\n"
    )

    @register_codegen("twicer")
    def twicer(function: func.FuncOp, target: str) -> ExternalFunction:
        symbol = function.attributes["global_symbol"].data  # type: ignore[attr-defined]
        source = f'#include "twice.h"\nvoid {symbol}(void *x, void *y) {{ twice(x, y, 4); }}\n'
        return ExternalFunction(
            symbol,
            [Param("x", "float32", (4,)), Param("y", "float32", (4,))],
            source,
            include_dirs=(str(tmp_path),),
            extra_sources=(tmp_path / "twice.c",),
            libraries=("m",),
            description=f"twice({symbol})",
        )

    module = default_context().parse(UNKNOWN.replace("nosuch", "twicer"))
    factory = relay.build(module, target="llvm")
    x = rand(4)
    (got,) = run_factory(factory, x=x)
    np.testing.assert_array_equal(got, 2 * x)
    assert factory.get_lib().imported_modules[0].get_source().strip() == (
        "twice(tvmgen_default_twicer_main_0)"
    )
    assert "twicer" in registered_codegens()
