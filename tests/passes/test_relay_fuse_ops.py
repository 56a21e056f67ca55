"""relay-fuse-ops: TVM's fusion groups on TVM's test cases, with unchanged values."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType

from xtvm.dialects import relay
from xtvm.dialects.registry import default_context
from xtvm.ir.printer import print_ir
from xtvm.ir.verify import verify_diagnostics
from xtvm.passes.relay_fuse_ops import RelayFuseOpsPass, outline_group, sort_block
from xtvm.runtime.relay_interpreter import evaluate

CTX = default_context()


def fuse(module: ModuleOp, max_depth: int = 256) -> ModuleOp:
    RelayFuseOpsPass(max_depth=max_depth).apply(CTX.xdsl_context, module)
    assert verify_diagnostics(module, {}) == [], print_ir(module, CTX)
    return module


def primitive_groups(module: ModuleOp) -> list[list[str]]:
    """The relay ops (constants left out) of each primitive function, in module order."""
    return [
        [
            op.name
            for op in f.body.block.ops
            if isinstance(op, relay.RelayOp) and not isinstance(op, relay.ConstOp)
        ]
        for f in module.body.block.ops
        if isinstance(f, func.FuncOp) and "primitive" in f.attributes
    ]


def main_ops(module: ModuleOp) -> list[str]:
    (main,) = [
        f for f in module.body.block.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main"
    ]
    return [op.name for op in main.body.block.ops]


def random_inputs(module: ModuleOp, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    (main,) = [
        f for f in module.body.block.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main"
    ]
    inputs = []
    for typ in main.function_type.inputs.data:
        assert isinstance(typ, TensorType)
        inputs.append(rng.uniform(0.1, 1.0, typ.get_shape()).astype(np.float32))
    return inputs


def check_fusion(text: str, expected: list[list[str]], max_depth: int = 256) -> ModuleOp:
    """Fuse `text`, compare its groups with `expected` and its values with the unfused ones."""
    module = CTX.parse(text)
    inputs = random_inputs(module)
    before = evaluate(module, inputs)
    fuse(module, max_depth)
    assert primitive_groups(module) == expected, print_ir(module, CTX)
    after = evaluate(module, inputs)
    for got, want in zip(after, before, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    return module


def test_fuse_simple() -> None:
    module = check_fusion(
        """
func.func @main(%x: tensor<10x20xf32>) -> tensor<10x20xf32> {
  %one = relay.const dense<1.0> : tensor<f32>
  %y = relay.add %x, %one : (tensor<10x20xf32>, tensor<f32>) -> tensor<10x20xf32>
  %z = relay.exp %y : (tensor<10x20xf32>) -> tensor<10x20xf32>
  %w = relay.squeeze %z : (tensor<10x20xf32>) -> tensor<10x20xf32>
  func.return %w : tensor<10x20xf32>
}
""",
        [["relay.add", "relay.exp", "relay.squeeze"]],
    )
    assert main_ops(module) == ["func.call", "func.return"]  # the constant moved inside


T = "tensor<1x4x6x6xf32>"
W3 = "tensor<4x4x3x3xf32>"
PAD = "{padding = array<i64: 1, 1, 1, 1>}"
CONV2D_FUSE = f"""
func.func @main(%x: {T}, %w1: {W3}, %w2: tensor<4x4x1x1xf32>, %w3: {W3}) -> {T} {{
  %one = relay.const dense<1.0> : tensor<f32>
  %x1 = relay.add %x, %one : ({T}, tensor<f32>) -> {T}
  %y = relay.nn.conv2d %x1, %w1 {PAD} : ({T}, {W3}) -> {T}
  %one2 = relay.const dense<1.0> : tensor<f32>
  %y1 = relay.add %one2, %y : (tensor<f32>, {T}) -> {T}
  %y2 = relay.add %y, %y1 : ({T}, {T}) -> {T}
  %z2 = relay.nn.conv2d %y2, %w2 : ({T}, tensor<4x4x1x1xf32>) -> {T}
  %z3 = relay.nn.conv2d %y2, %w3 {PAD} : ({T}, {W3}) -> {T}
  %z = relay.add %z2, %z3 : ({T}, {T}) -> {T}
  func.return %z : {T}
}}
"""


def test_conv2d_fuse() -> None:
    # The first add stops at the conv2d; each conv2d takes the elementwise ops it dominates. The
    # final add joins the first of its two conv2d producers; the second then meets a group that
    # is no longer elementwise and stays alone (TVM's segments 3 and 2).
    check_fusion(
        CONV2D_FUSE,
        [
            ["relay.add"],
            ["relay.nn.conv2d", "relay.add", "relay.add"],
            ["relay.nn.conv2d", "relay.add"],
            ["relay.nn.conv2d"],
        ],
    )


X8 = "tensor<1x4x8x8xf32>"
POOL_UPSAMPLE = f"""
  %p = relay.nn.max_pool2d %x {{pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}}
    : ({X8}) -> tensor<1x4x4x4xf32>
  %u = relay.nn.upsampling %p {{scale_h = 2.0 : f64, scale_w = 2.0 : f64}}
    : (tensor<1x4x4x4xf32>) -> {X8}
"""


def test_concatenate() -> None:
    check_fusion(
        f"func.func @main(%x: {X8}) -> tensor<1x8x8x8xf32> {{"
        + POOL_UPSAMPLE
        + f"""
  %c = relay.concatenate %u, %x {{axis = 1 : i64}} : ({X8}, {X8}) -> tensor<1x8x8x8xf32>
  %one = relay.const dense<1.0> : tensor<f32>
  %y = relay.add %c, %one : (tensor<1x8x8x8xf32>, tensor<f32>) -> tensor<1x8x8x8xf32>
  func.return %y : tensor<1x8x8x8xf32>
}}
""",
        [["relay.nn.max_pool2d"], ["relay.nn.upsampling", "relay.concatenate", "relay.add"]],
    )


def test_tuple_root() -> None:
    module = check_fusion(
        f"func.func @main(%x: {X8}) -> tuple<{X8}, {X8}> {{"
        + POOL_UPSAMPLE
        + f"""
  %t = relay.tuple %u, %x : ({X8}, {X8}) -> tuple<{X8}, {X8}>
  func.return %t : tuple<{X8}, {X8}>
}}
""",
        [["relay.nn.max_pool2d"], ["relay.nn.upsampling"]],
    )
    assert main_ops(module) == ["func.call", "func.call", "relay.tuple", "func.return"]


def test_tuple_intermediate() -> None:
    # Injective ops around a tuple that feeds concatenate all end up in one function.
    t = "tensor<1x4x8xf32>"
    check_fusion(
        f"""
func.func @main(%x: tensor<1x1x4x8xf32>) -> tensor<1x12x8xf32> {{
  %one = relay.const dense<1.0> : tensor<f32>
  %inj = relay.squeeze %x {{axis = array<i64: 1>}} : (tensor<1x1x4x8xf32>) -> {t}
  %y1 = relay.add %inj, %one : ({t}, tensor<f32>) -> {t}
  %tmp = relay.transpose %inj {{axes = array<i64: 0, 1, 2>}} : ({t}) -> {t}
  %tmp1 = relay.add %tmp, %one : ({t}, tensor<f32>) -> {t}
  %y2 = relay.add %tmp1, %one : ({t}, tensor<f32>) -> {t}
  %y3 = relay.add %inj, %one : ({t}, tensor<f32>) -> {t}
  %c = relay.concatenate %y1, %y2, %y3 {{axis = 1 : i64}} : ({t}, {t}, {t}) -> tensor<1x12x8xf32>
  %out = relay.exp %c : (tensor<1x12x8xf32>) -> tensor<1x12x8xf32>
  func.return %out : tensor<1x12x8xf32>
}}
""",
        [
            [
                "relay.squeeze",
                "relay.add",
                "relay.transpose",
                "relay.add",
                "relay.add",
                "relay.add",
                "relay.concatenate",
                "relay.exp",
            ]
        ],
    )


def test_inception_like() -> None:
    # Two convolutions with relu feed a concatenate, twice: conv2d+relu groups, and the
    # concatenates alone (their consumers are convolutions).
    def conv(name: str, data: str, channels: int) -> str:
        return (
            f"  %{name}c = relay.nn.conv2d %{data}, %w{name} {PAD} "
            f": (tensor<1x{channels}x6x6xf32>, tensor<4x{channels}x3x3xf32>) -> {T}\n"
            f"  %{name} = relay.nn.relu %{name}c : ({T}) -> {T}\n"
        )

    weights = ", ".join(
        f"%w{n}: tensor<4x{c}x3x3xf32>" for n, c in (("a", 4), ("b", 4), ("c", 8), ("d", 8))
    )
    cat = "(tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x8x6x6xf32>"
    text = (
        f"func.func @main(%x: tensor<1x4x6x6xf32>, {weights}) -> tensor<1x8x6x6xf32> {{\n"
        + conv("a", "x", 4)
        + conv("b", "x", 4)
        + f"  %cat1 = relay.concatenate %a, %b {{axis = 1 : i64}} : {cat}\n"
        + conv("c", "cat1", 8)
        + conv("d", "cat1", 8)
        + f"  %cat2 = relay.concatenate %c, %d {{axis = 1 : i64}} : {cat}\n"
        + "  func.return %cat2 : tensor<1x8x6x6xf32>\n}\n"
    )
    conv_relu = ["relay.nn.conv2d", "relay.nn.relu"]
    check_fusion(
        text,
        [conv_relu, conv_relu, ["relay.concatenate"], conv_relu, conv_relu, ["relay.concatenate"]],
    )


def chain(n: int) -> str:
    lines = [
        f"  %{i + 1} = relay.exp %{i} : (tensor<10x20xf32>) -> tensor<10x20xf32>" for i in range(n)
    ]
    return (
        "func.func @main(%0: tensor<10x20xf32>) -> tensor<10x20xf32> {\n"
        + "\n".join(lines)
        + f"\n  func.return %{n} : tensor<10x20xf32>\n}}\n"
    )


def test_fuse_max() -> None:
    module = check_fusion(
        chain(20), [["relay.exp"] * 8, ["relay.exp"] * 8, ["relay.exp"] * 4], max_depth=8
    )
    names = [f.sym_name.data for f in module.body.block.ops if isinstance(f, func.FuncOp)]
    assert names == [
        "fused_" + "_".join(["exp"] * 8),
        "fused_" + "_".join(["exp"] * 8) + "_1",
        "fused_exp_exp_exp_exp",
        "main",
    ]


def test_default_max_depth_is_tvms() -> None:
    check_fusion(chain(300), [["relay.exp"] * 256, ["relay.exp"] * 44])


def test_stop_at_opaque_op_and_reduction() -> None:
    check_fusion(
        """
func.func @main(%x: tensor<1x6x4x4xf32>) -> tensor<1x6xf32> {
  %a = relay.exp %x : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  %b = relay.nn.lrn %a {size = 3 : i64} : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  %c = relay.sqrt %b : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  %d = relay.mean %c {axis = array<i64: 2, 3>} : (tensor<1x6x4x4xf32>) -> tensor<1x6xf32>
  %e = relay.negative %d : (tensor<1x6xf32>) -> tensor<1x6xf32>
  func.return %e : tensor<1x6xf32>
}
""",
        [["relay.exp"], ["relay.nn.lrn"], ["relay.sqrt", "relay.mean"], ["relay.negative"]],
    )


def test_fusing_twice_changes_nothing() -> None:
    module = fuse(CTX.parse(CONV2D_FUSE))
    text = print_ir(module, CTX)
    assert print_ir(fuse(module), CTX) == text


def test_outline_group_with_two_outputs_keeps_order_and_values() -> None:
    # Not a group the partitioner makes (its groups have one output), but the outliner handles
    # any set of ops: here exp and sqrt, both read outside, with a negative between them.
    module = CTX.parse(
        """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %n = relay.negative %a : (tensor<4xf32>) -> tensor<4xf32>
  %s = relay.sqrt %x : (tensor<4xf32>) -> tensor<4xf32>
  %y = relay.add %n, %s : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
"""
    )
    inputs = random_inputs(module)
    before = evaluate(module, inputs)
    main = module.body.block.first_op
    assert isinstance(main, func.FuncOp)
    exp, _, sqrt, _, _ = list(main.body.block.ops)
    call = outline_group([exp, sqrt], "fused_exp_sqrt", main)
    sort_block(main.body.block)
    assert verify_diagnostics(module, {}) == [], print_ir(module, CTX)
    assert len(call.results) == 2
    assert main_ops(module) == ["func.call", "relay.negative", "relay.add", "func.return"]
    np.testing.assert_allclose(evaluate(module, inputs)[0], before[0], rtol=1e-6)


def test_dead_ops_and_calls_between_functions_stay_in_place() -> None:
    # The dead exp is left for relay-dce; the call to @helper is no relay op, so the ops on
    # either side of it fuse apart; @helper, public too, gets its own primitive function.
    module = CTX.parse(
        """
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %n = relay.negative %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %n : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %dead = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %a = relay.sqrt %x : (tensor<4xf32>) -> tensor<4xf32>
  %c = func.call @helper(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %e = relay.exp %c : (tensor<4xf32>) -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}
"""
    )
    inputs = random_inputs(module)
    before = evaluate(module, inputs)
    fuse(module)
    assert primitive_groups(module) == [["relay.negative"], ["relay.sqrt"], ["relay.exp"]]
    assert main_ops(module) == ["relay.exp", "func.call", "func.call", "func.call", "func.return"]
    np.testing.assert_allclose(evaluate(module, inputs)[0], before[0], rtol=1e-6)


def test_values_read_twice_do_not_multiply_a_kernel() -> None:
    # relu -> concatenate([y, y]) -> strided_slice, 50 deep: fused whole, every kernel would
    # compute the first relu 2^50 times (the build never ended). Groups stop at 16 copies.
    import xtvm as tvm
    from xtvm import relay as api
    from xtvm.driver.relay_build import lower_for_build

    x = api.var("x", shape=(1, 2, 2, 4))
    y = x
    for _ in range(50):
        y = api.nn.relu(api.add(y, api.const(np.float32(-0.01))))
        y = api.strided_slice(api.concatenate([y, y], axis=3), [0, 0, 0, 0], [1, 2, 2, 4])
    mod = tvm.IRModule.from_expr(api.Function([x], y))
    data = np.random.default_rng(0).random((1, 2, 2, 4)).astype(np.float32)
    main, _ = lower_for_build(mod)
    calls = [op for op in main.walk() if isinstance(op, func.CallOp)]
    assert 50 // 4 <= len(calls) <= 50  # four levels (16 copies) at most per kernel
    module = api.build(mod, "llvm")["default"](tvm.cpu())
    module.set_input(x=data)
    module.run()
    np.testing.assert_allclose(
        module.get_output(0).numpy(), np.maximum(data - 0.5, 0), rtol=1e-5, atol=1e-6
    )


class CountingNodes(list):  # type: ignore[type-arg]
    """A node list that counts how many nodes were read from it."""

    reads = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        for node in super().__iter__():
            self.reads += 1
            yield node

    def __reversed__(self):  # type: ignore[no-untyped-def]
        for node in super().__reversed__():
            self.reads += 1
            yield node

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        self.reads += 1
        return super().__getitem__(index)


def test_counting_copies_reads_only_the_merged_groups() -> None:
    # 200 independent `negative -> y + y -> exp` chains, each fused on its own: counting the
    # copies of a merge visits the nodes of its groups, not every node of the function (an
    # unrolled LSTM made that quadratic).
    from xtvm.passes.relay_fuse_ops import GraphPartitioner, build_graph

    chains, t = 200, "tensor<2xf32>"
    lines = [f"func.func @main(%x: {t}) -> ({', '.join([t] * chains)}) {{"]
    for i in range(chains):
        lines += [
            f"  %n{i} = relay.negative %x : ({t}) -> {t}",
            f"  %a{i} = relay.add %n{i}, %n{i} : ({t}, {t}) -> {t}",
            f"  %e{i} = relay.exp %a{i} : ({t}) -> {t}",
        ]
    lines.append(
        f"  func.return {', '.join(f'%e{i}' for i in range(chains))} : {', '.join([t] * chains)}"
    )
    lines.append("}")
    module = CTX.parse("\n".join(lines))
    (main,) = module.body.block.ops
    assert isinstance(main, func.FuncOp)
    nodes = CountingNodes(build_graph(main.body.block))
    partitioner = GraphPartitioner(nodes, 256)
    assert len({id(g.find_root()) for g in partitioner.partition()}) == chains
    negative, add = nodes[0], nodes[1]
    nodes.reads = 0
    assert partitioner.inlined_copies(negative, add) == 2  # `y + y` computes the negative twice
    assert nodes.reads <= 3


def test_outline_group_orders_by_positions_taken_before_outlining() -> None:
    # The pass numbers the block's ops once; after a first group is outlined (ops erased, a
    # call added) the numbers still order the next group's ops and its constant.
    module = CTX.parse(
        """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = relay.sqrt %a : (tensor<4xf32>) -> tensor<4xf32>
  %one = relay.const dense<1.0> : tensor<f32>
  %c = relay.add %b, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %d = relay.negative %c : (tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}
"""
    )
    inputs = random_inputs(module)
    before = evaluate(module, inputs)
    main = module.body.block.first_op
    assert isinstance(main, func.FuncOp)
    exp, sqrt, _, add, negative, _ = list(main.body.block.ops)
    position = {op: index for index, op in enumerate(main.body.block.ops)}
    outline_group([exp, sqrt], "fused_exp_sqrt", main, position)
    outline_group([add, negative], "fused_add_negative", main, position)
    sort_block(main.body.block)
    assert verify_diagnostics(module, {}) == [], print_ir(module, CTX)
    assert primitive_groups(module) == [
        ["relay.exp", "relay.sqrt"],
        ["relay.add", "relay.negative"],
    ]
    second = [f for f in module.body.block.ops if isinstance(f, func.FuncOp)][1]
    assert [op.name for op in second.body.block.ops] == [
        "relay.const",
        "relay.add",
        "relay.negative",
        "func.return",
    ]
    assert main_ops(module) == ["func.call", "func.call", "func.return"]
    np.testing.assert_allclose(evaluate(module, inputs)[0], before[0], rtol=1e-6)


S = "tensor<1x8x6x6xf32>"
S5 = "tensor<1x2x4x6x6xf32>"
S5T = "tensor<1x4x2x6x6xf32>"


def shuffle_then_conv(weight: str, attrs: str, extra_use: bool = False) -> str:
    """ShuffleNet's channel shuffle (reshape, transpose, reshape) feeding a conv2d."""
    out = "%z" if not extra_use else "%both"
    tail = f"  %both = relay.add %z, %s : ({S}, {S}) -> {S}\n" if extra_use else ""
    return f"""
func.func @main(%x: {S}, %w: {weight}) -> {S} {{
  %r = relay.reshape %x {{newshape = array<i64: 1, 2, 4, 6, 6>}} : ({S}) -> {S5}
  %t = relay.transpose %r {{axes = array<i64: 0, 2, 1, 3, 4>}} : ({S5}) -> {S5T}
  %s = relay.reshape %t {{newshape = array<i64: 1, 8, 6, 6>}} : ({S5T}) -> {S}
  %c = relay.nn.conv2d %s, %w {attrs} : ({S}, {weight}) -> {S}
  %one = relay.const dense<1.0> : tensor<f32>
  %z = relay.add %c, %one : ({S}, tensor<f32>) -> {S}
{tail}  func.return {out} : {S}
}}
"""


SHUFFLE = ["relay.reshape", "relay.transpose", "relay.reshape"]
DEPTHWISE = "{groups = 8 : i64, padding = array<i64: 1, 1, 1, 1>}"


def test_channel_shuffle_joins_the_padded_copy_of_a_depthwise_conv2d() -> None:
    # The conv2d copies its padded input anyway: the shuffle's reads join that copy.
    check_fusion(
        shuffle_then_conv("tensor<8x1x3x3xf32>", DEPTHWISE),
        [[*SHUFFLE, "relay.nn.conv2d", "relay.add"]],
    )


def test_injective_ops_stay_out_of_other_conv2d() -> None:
    # TVM's rule elsewhere: a grouped (not depthwise) conv2d, an unpadded depthwise one (no
    # copy to join) and a shuffle read by another op too keep the shuffle a kernel of its own.
    for weight, attrs in [
        ("tensor<8x2x3x3xf32>", "{groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>}"),
        ("tensor<8x1x1x1xf32>", "{groups = 8 : i64}"),
    ]:
        check_fusion(shuffle_then_conv(weight, attrs), [SHUFFLE, ["relay.nn.conv2d", "relay.add"]])
    check_fusion(
        shuffle_then_conv("tensor<8x1x3x3xf32>", DEPTHWISE, extra_use=True),
        [SHUFFLE, ["relay.nn.conv2d", "relay.add", "relay.add"]],
    )
