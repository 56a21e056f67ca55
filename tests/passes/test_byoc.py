"""BYOC partitioning: annotate-target, merge-compiler-regions and partition-graph together.

Each case checks the structure of the partitioned module and that the interpreter computes the
same values before and after partitioning, on random inputs.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType

from xtvm.dialects import relay
from xtvm.dialects.registry import default_context
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.passes import all_passes
from xtvm.passes.byoc_targets import (
    OpView,
    register_op_attr,
    registered_targets,
    supported_targets,
    unregister_target,
)
from xtvm.passes.relay_annotate_target import RelayAnnotateTargetPass
from xtvm.passes.relay_merge_compiler_regions import RelayMergeCompilerRegionsPass
from xtvm.passes.relay_partition_graph import RelayPartitionGraphPass
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing.passes import run

CTX = default_context()


def partition(module: ModuleOp, *targets: str) -> ModuleOp:
    return run(
        module,
        RelayAnnotateTargetPass(targets=targets),
        RelayMergeCompilerRegionsPass(),
        RelayPartitionGraphPass(),
    )


def functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {f.sym_name.data: f for f in module.body.block.ops if isinstance(f, func.FuncOp)}


def external(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {n: f for n, f in functions(module).items() if "compiler" in f.attributes}


def op_names(f: func.FuncOp) -> list[str]:
    return [op.name for op in f.body.block.ops]


def random_inputs(module: ModuleOp, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    args = functions(module)["main"].body.block.args
    shapes = [a.type.get_shape() for a in args if isinstance(a.type, TensorType)]
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def check_same_values(text: str, *targets: str) -> ModuleOp:
    """Partition `text` for `targets`; the interpreter's results must not change."""
    module = CTX.parse(text)
    inputs = random_inputs(module)
    expected = evaluate(module, inputs)
    partition(module, *targets)
    got = evaluate(module, inputs)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
    return module


CHAIN = """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = relay.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = relay.subtract %a, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = relay.multiply %s, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = relay.tanh %m : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %t : tensor<2x3xf32>
}
"""


def test_chain_is_offloaded_as_one_region() -> None:
    module = check_same_values(CHAIN, "ccompiler")
    ((name, f),) = external(module).items()
    assert name == "tvmgen_default_ccompiler_main_0"
    assert f.attributes["compiler"].data == "ccompiler"  # type: ignore[attr-defined]
    assert f.attributes["global_symbol"].data == name  # type: ignore[attr-defined]
    assert f.sym_visibility is not None and f.sym_visibility.data == "private"
    assert op_names(f) == ["relay.add", "relay.subtract", "relay.multiply", "func.return"]
    assert op_names(functions(module)["main"]) == ["func.call", "relay.tanh", "func.return"]
    assert not any(
        "compiler" in op.attributes
        for op in functions(module)["main"].walk()
        if op.name != "func.func"
    )


DIAMOND = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = relay.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  %m = relay.multiply %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = relay.subtract %m, %e : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
"""


def test_diamond_is_not_merged_into_a_cycle() -> None:
    module = CTX.parse(DIAMOND)
    run(module, RelayAnnotateTargetPass(targets=("ccompiler",)), RelayMergeCompilerRegionsPass())
    regions = {
        op.name: op.attributes["compiler_region"].value.data  # type: ignore[attr-defined]
        for op in module.walk()
        if "compiler_region" in op.attributes
    }
    assert regions == {"relay.add": 0, "relay.multiply": 0, "relay.subtract": 1}
    module = check_same_values(DIAMOND, "ccompiler")
    assert sorted(external(module)) == [
        "tvmgen_default_ccompiler_main_0",
        "tvmgen_default_ccompiler_main_1",
    ]
    main = functions(module)["main"]
    assert op_names(main) == ["func.call", "relay.exp", "func.call", "func.return"]


TWO_OUTPUTS = """
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %a = relay.add %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %m = relay.multiply %a, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %e = relay.exp %a : (tensor<3xf32>) -> tensor<3xf32>
  %r = relay.nn.relu %m : (tensor<3xf32>) -> tensor<3xf32>
  func.return %e, %r : tensor<3xf32>, tensor<3xf32>
}
"""


def test_region_with_two_outputs_returns_both() -> None:
    module = check_same_values(TWO_OUTPUTS, "ccompiler")
    (f,) = external(module).values()
    assert len(f.function_type.outputs.data) == 2
    (call,) = [op for op in functions(module)["main"].walk() if isinstance(op, func.CallOp)]
    assert len(call.results) == 2
    exp, relu = (op for op in functions(module)["main"].walk() if isinstance(op, relay.RelayOp))
    assert exp.operands[0] is call.results[0] and relu.operands[0] is call.results[1]


CONV = """
func.func @main(%x: tensor<1x4x6x6xf32>, %w3: tensor<4x4x3x3xf32>, %w1: tensor<4x4x1x1xf32>,
                %b: tensor<1x4x1x1xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x6x6xf32>) {
  %c3 = relay.nn.conv2d %x, %w3 : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  %a3 = relay.add %c3, %b : (tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %r3 = relay.nn.relu %a3 : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c1 = relay.nn.conv2d %x, %w1 : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %a1 = relay.add %c1, %b : (tensor<1x4x6x6xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %r1 = relay.nn.relu %a1 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %r3, %r1 : tensor<1x4x4x4xf32>, tensor<1x4x6x6xf32>
}
"""


@pytest.fixture
def pointwise_target() -> Iterator[str]:
    """A codegen taking float32 1x1 convolutions with unit strides, adds and relus."""

    @register_op_attr("nn.conv2d", "target.pointwise")
    def conv2d(expr: OpView) -> bool:
        data, weight = expr.args
        return (
            weight.checked_type.shape[2:] == (1, 1)
            and data.dtype == "float32"
            and expr.attrs["strides"] == (1, 1)
        )

    register_op_attr("add", "target.pointwise", True)
    register_op_attr("nn.relu", "target.pointwise", lambda expr: expr.args[0].dtype == "float32")
    yield "pointwise"
    unregister_target("pointwise")


def test_conv2d_rejected_by_predicate_stays_on_host(pointwise_target: str) -> None:
    module = check_same_values(CONV, pointwise_target)
    main = functions(module)["main"]
    convs = [op for op in main.walk() if isinstance(op, relay.Conv2dOp)]
    assert [c.weight.type.get_shape() for c in convs] == [(4, 4, 3, 3)]  # type: ignore[attr-defined]
    bodies = {n: op_names(f) for n, f in external(module).items()}
    assert bodies == {
        "tvmgen_default_pointwise_main_0": ["relay.add", "relay.nn.relu", "func.return"],
        "tvmgen_default_pointwise_main_1": [
            "relay.nn.conv2d",
            "relay.add",
            "relay.nn.relu",
            "func.return",
        ],
    }


def test_first_listed_target_wins(pointwise_target: str) -> None:
    module = CTX.parse(CHAIN)
    run(module, RelayAnnotateTargetPass(targets=(pointwise_target, "ccompiler")))
    compilers = [
        op.attributes["compiler"].data
        for op in module.walk()  # type: ignore[attr-defined]
        if "compiler" in op.attributes
    ]
    assert compilers == ["pointwise", "ccompiler", "ccompiler", "default"]
    module = check_same_values(CHAIN, pointwise_target, "ccompiler")
    assert sorted(external(module)) == [
        "tvmgen_default_ccompiler_main_1",
        "tvmgen_default_pointwise_main_0",
    ]


def test_predicate_sees_attributes_and_argument_types() -> None:
    seen: list[OpView] = []

    @register_op_attr("nn.conv2d", "target.spy")
    def conv2d(expr: OpView) -> bool:
        seen.append(expr)
        return False

    try:
        module = CTX.parse(CONV)
        run(module, RelayAnnotateTargetPass(targets=("spy",)))
    finally:
        unregister_target("spy")
    assert "spy" not in registered_targets()
    first = seen[0]
    assert first.op_name == "nn.conv2d"
    assert first.attrs["strides"] == (1, 1) and first.attrs["groups"] == 1
    assert first.attrs["data_layout"] == "NCHW"
    assert first.args[1].shape == (4, 4, 3, 3) and first.args[0].dtype == "float32"
    assert first.results[0].shape == (1, 4, 4, 4)
    # Other codegens (dnnl registers at import) may claim the op; the spy is gone.
    assert "spy" not in supported_targets(first.op)


def test_unknown_target_is_an_error() -> None:
    module = CTX.parse(CHAIN)
    with pytest.raises(DiagnosticError, match="unknown target 'nosuch'"):
        run(module, RelayAnnotateTargetPass(targets=("nosuch",)))


def test_partition_without_regions_is_an_error() -> None:
    module = CTX.parse(CHAIN)
    run(module, RelayAnnotateTargetPass(targets=("ccompiler",)))
    with pytest.raises(DiagnosticError, match="run relay-merge-compiler-regions first"):
        run(module, RelayPartitionGraphPass())


def test_passes_are_registered() -> None:
    passes = all_passes()
    for cls in (RelayAnnotateTargetPass, RelayMergeCompilerRegionsPass, RelayPartitionGraphPass):
        assert passes[cls.name]() is cls


def test_non_convex_region_is_refused_by_partition() -> None:
    text = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.add %x, %x {compiler = "ccompiler", compiler_region = 0 : i64}
    : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = relay.exp %a {compiler = "default"} : (tensor<4xf32>) -> tensor<4xf32>
  %m = relay.multiply %e, %a {compiler = "ccompiler", compiler_region = 0 : i64}
    : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %m : tensor<4xf32>
}
"""
    module = CTX.parse(text)
    with pytest.raises(DiagnosticError, match=r"compiler region is not convex: 'relay\.exp' op"):
        run(module, RelayPartitionGraphPass())
    # The merge pass itself never builds such a region: it splits the two ops.
    run(module, RelayMergeCompilerRegionsPass(), RelayPartitionGraphPass())
    assert len(external(module)) == 2


def test_tuple_valued_op_in_region_keeps_values() -> None:
    text = """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %p = relay.split %a {indices_or_sections = array<i64: 2>}
    : (tensor<4xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  %l = relay.tuple_get_item %p[0] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  %r = relay.tuple_get_item %p[1] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  %m = relay.multiply %l, %r : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %c = relay.concatenate %m, %m : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}
"""
    module = check_same_values(text, "ccompiler")
    # split is the host's, so the get_items follow it and multiply is a region of its own.
    assert [op_names(f) for f in external(module).values()] == [
        ["relay.add", "func.return"],
        ["relay.multiply", "func.return"],
    ]
