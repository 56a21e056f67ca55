"""The Relay text importer: TVM's printed programs parse, run like numpy and equal the same
program built through the Python API; malformed ones give located diagnostics."""

# The programs are kept in TVM's exact printed form, one binding per line, however long.
# ruff: noqa: E501

from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import xtvm as tvm
from xtvm import relay
from xtvm.api.relay.op.annotation import compiler_begin, compiler_end
from xtvm.api.relay.text import parse
from xtvm.ir.diagnostics import DiagnosticError

RNG = np.random.default_rng(7)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype("float32")


def run(mod: tvm.IRModule, *args: np.ndarray) -> object:
    return relay.create_executor("debug", mod=mod).evaluate()(*args)


def conv2d_nchw(x: np.ndarray, w: np.ndarray, pad: int) -> np.ndarray:
    padded = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    windows = sliding_window_view(padded, w.shape[2:], axis=(2, 3))  # n c h w kh kw
    return np.einsum("nchwij,ocij->nohw", windows, w)


def batch_norm(x: np.ndarray, *stats: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """Inference batch norm over axis 1 of NCHW data; `stats` as the op's operands."""
    gamma, beta, mean, var = stats
    scale = (gamma / np.sqrt(var + eps)).reshape(1, -1, 1, 1)
    return (x - mean.reshape(1, -1, 1, 1)) * scale + beta.reshape(1, -1, 1, 1)


def error_of(text: str) -> DiagnosticError:
    with pytest.raises(DiagnosticError) as info:
        parse(text, "model.relay")
    return info.value


# ---------------------------------------------------------------------------------------------
# Programs in TVM's printed form

CONV_BLOCK = """#[version = "0.0.5"]
def @main(%data: Tensor[(1, 3, 8, 8), float32], %weight: Tensor[(16, 3, 3, 3), float32], %bias: Tensor[(16), float32]) -> Tensor[(1, 16, 8, 8), float32] {
  %0 = nn.conv2d(%data, %weight, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3], out_dtype="") /* ty=Tensor[(1, 16, 8, 8), float32] */;
  %1 = nn.bias_add(%0, %bias) /* ty=Tensor[(1, 16, 8, 8), float32] */;
  nn.relu(%1) /* ty=Tensor[(1, 16, 8, 8), float32] */
}
"""


def test_conv_bias_relu_block_runs_and_equals_the_api_program() -> None:
    mod = parse(CONV_BLOCK)
    x, w, b = rand(1, 3, 8, 8), rand(16, 3, 3, 3), rand(16)
    expected = np.maximum(conv2d_nchw(x, w, 1) + b.reshape(1, -1, 1, 1), 0)
    np.testing.assert_allclose(run(mod, x, w, b).numpy(), expected, rtol=1e-4, atol=1e-4)

    data = relay.var("data", shape=(1, 3, 8, 8))
    weight = relay.var("weight", shape=(16, 3, 3, 3))
    bias = relay.var("bias", shape=(16,))
    conv = relay.nn.conv2d(data, weight, padding=(1, 1), channels=16, kernel_size=(3, 3))
    body = relay.nn.relu(relay.nn.bias_add(conv, bias))
    built = tvm.IRModule.from_expr(relay.Function([data, weight, bias], body))
    assert tvm.ir.structural_equal(mod, built)
    assert not tvm.ir.structural_equal(mod, tvm.IRModule.from_expr(relay.Function([data], data)))


RESNET_BLOCK = """#[version = "0.0.5"]
def @main(%data: Tensor[(1, 4, 6, 6), float32], %conv1_weight: Tensor[(4, 4, 3, 3), float32], %bn1_gamma: Tensor[(4), float32], %bn1_beta: Tensor[(4), float32], %bn1_moving_mean: Tensor[(4), float32], %bn1_moving_var: Tensor[(4), float32], %conv2_weight: Tensor[(4, 4, 3, 3), float32], %bn2_gamma: Tensor[(4), float32], %bn2_beta: Tensor[(4), float32], %bn2_moving_mean: Tensor[(4), float32], %bn2_moving_var: Tensor[(4), float32]) -> Tensor[(1, 4, 6, 6), float32] {
  %0 = nn.conv2d(%data, %conv1_weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]) /* ty=Tensor[(1, 4, 6, 6), float32] */;
  %1 = nn.batch_norm(%0, %bn1_gamma, %bn1_beta, %bn1_moving_mean, %bn1_moving_var, epsilon=1e-05f) /* ty=(Tensor[(1, 4, 6, 6), float32], Tensor[(4), float32], Tensor[(4), float32]) */;
  %2 = %1.0 /* ty=Tensor[(1, 4, 6, 6), float32] */;
  %3 = nn.relu(%2) /* ty=Tensor[(1, 4, 6, 6), float32] */;
  %4 = nn.conv2d(%3, %conv2_weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]) /* ty=Tensor[(1, 4, 6, 6), float32] */;
  %5 = nn.batch_norm(%4, %bn2_gamma, %bn2_beta, %bn2_moving_mean, %bn2_moving_var, epsilon=1e-05f) /* ty=(Tensor[(1, 4, 6, 6), float32], Tensor[(4), float32], Tensor[(4), float32]) */;
  %6 = add(%5.0, %data) /* ty=Tensor[(1, 4, 6, 6), float32] */;
  nn.relu(%6) /* ty=Tensor[(1, 4, 6, 6), float32] */
}
"""


def test_resnet_basic_block_with_batch_norm_projections() -> None:
    mod = parse(RESNET_BLOCK)
    x = rand(1, 4, 6, 6)
    bn1 = [rand(4), rand(4), rand(4), np.abs(rand(4)) + 0.5]
    bn2 = [rand(4), rand(4), rand(4), np.abs(rand(4)) + 0.5]
    w1, w2 = rand(4, 4, 3, 3), rand(4, 4, 3, 3)
    h = np.maximum(batch_norm(conv2d_nchw(x, w1, 1), *bn1), 0)
    expected = np.maximum(batch_norm(conv2d_nchw(h, w2, 1), *bn2) + x, 0)
    got = run(mod, x, w1, *bn1, w2, *bn2).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


MLP = """#[version = "0.0.5"]
def @main(%x: Tensor[(4, 8), float32], %w1: Tensor[(16, 8), float32], %b1: Tensor[(16), float32], %w2: Tensor[(3, 16), float32], %b2: Tensor[(3), float32]) -> Tensor[(4, 3), float32] {
  %0 = nn.dense(%x, %w1, units=16) /* ty=Tensor[(4, 16), float32] */;
  %1 = nn.bias_add(%0, %b1, axis=-1) /* ty=Tensor[(4, 16), float32] */;
  %2 = nn.relu(%1) /* ty=Tensor[(4, 16), float32] */;
  %3 = nn.dense(%2, %w2, units=None) /* ty=Tensor[(4, 3), float32] */;
  %4 = nn.bias_add(%3, %b2, axis=-1) /* ty=Tensor[(4, 3), float32] */;
  nn.softmax(%4, axis=1) /* ty=Tensor[(4, 3), float32] */
}
"""


def test_two_layer_mlp_runs_and_equals_the_api_program() -> None:
    mod = parse(MLP)
    x, w1, b1, w2, b2 = rand(4, 8), rand(16, 8), rand(16), rand(3, 16), rand(3)
    logits = np.maximum(x @ w1.T + b1, 0) @ w2.T + b2
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    expected = exp / exp.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(run(mod, x, w1, b1, w2, b2).numpy(), expected, rtol=1e-5)

    xv, w1v, b1v = (
        relay.var("x", shape=(4, 8)),
        relay.var("w1", shape=(16, 8)),
        relay.var("b1", shape=(16,)),
    )
    w2v, b2v = relay.var("w2", shape=(3, 16)), relay.var("b2", shape=(3,))
    hidden = relay.nn.relu(relay.nn.bias_add(relay.nn.dense(xv, w1v), b1v, axis=-1))
    out = relay.nn.softmax(relay.nn.bias_add(relay.nn.dense(hidden, w2v), b2v, axis=-1), axis=1)
    built = tvm.IRModule.from_expr(relay.Function([xv, w1v, b1v, w2v, b2v], out))
    assert tvm.ir.structural_equal(mod, built)


SPLIT = """#[version = "0.0.5"]
def @main(%x: Tensor[(2, 6), float32]) -> (Tensor[(2, 3), float32], Tensor[(2, 6), float32]) {
  %0 = split(%x, indices_or_sections=2, axis=1) /* ty=(Tensor[(2, 3), float32], Tensor[(2, 3), float32]) */;
  %1 = %0.0 /* ty=Tensor[(2, 3), float32] */;
  %2 = %0.1 /* ty=Tensor[(2, 3), float32] */;
  %3 = (%2, %1) /* ty=(Tensor[(2, 3), float32], Tensor[(2, 3), float32]) */;
  %4 = concatenate(%3, axis=1) /* ty=Tensor[(2, 6), float32] */;
  (subtract(%1, %2), %4)
}
"""


def test_split_with_tuple_projections_and_a_tuple_result() -> None:
    mod = parse(SPLIT)
    x = rand(2, 6)
    diff, swapped = run(mod, x)
    np.testing.assert_allclose(diff.numpy(), x[:, :3] - x[:, 3:])
    np.testing.assert_allclose(swapped.numpy(), np.concatenate([x[:, 3:], x[:, :3]], axis=1))


TWO_FUNCTIONS = """#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), float32]) -> Tensor[(2, 2), float32] {
  %0 = @square_plus(%x, 1f) /* ty=Tensor[(2, 2), float32] */;
  @square_plus(%0, -0.5f) /* ty=Tensor[(2, 2), float32] */
}

def @square_plus(%a: Tensor[(2, 2), float32], %c: float32) -> Tensor[(2, 2), float32] {
  %0 = multiply(%a, %a) /* ty=Tensor[(2, 2), float32] */;
  add(%0, %c) /* ty=Tensor[(2, 2), float32] */
}
"""


def test_main_calls_a_function_defined_after_it() -> None:
    mod = parse(TWO_FUNCTIONS)
    assert sorted(gv.name_hint for gv in mod.get_global_vars()) == ["main", "square_plus"]
    call = mod["main"].body
    assert isinstance(call, relay.Call) and call.op == mod.get_global_var("square_plus")
    x = rand(2, 2)
    np.testing.assert_allclose(run(mod, x).numpy(), (x * x + 1) ** 2 - 0.5, rtol=1e-5)


FUSED = """#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] {
  %1 = fn (%p0: Tensor[(2, 3), float32], %p1: Tensor[(2, 3), float32], Primitive=1) -> Tensor[(2, 3), float32] {
    %0 = add(%p0, %p1) /* ty=Tensor[(2, 3), float32] */;
    exp(%0) /* ty=Tensor[(2, 3), float32] */
  } /* ty=fn (Tensor[(2, 3), float32], Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] */;
  %2 = %1(%x, %y) /* ty=Tensor[(2, 3), float32] */;
  %0 = negative(%2) /* ty=Tensor[(2, 3), float32] */;
  %0
}
"""


def test_fused_primitive_function_is_outlined_and_runs() -> None:
    mod = parse(FUSED)
    # Outlined in the IR, the fused function is a literal of @main, as in TVM's text.
    lifted = [f.sym_name.data for f in mod.xdsl.ops if f.sym_name.data != "main"]
    assert [gv.name_hint for gv in mod.get_global_vars()] == ["main"]
    assert len(lifted) == 1 and mod[lifted[0]].attrs["Primitive"] == 1
    x, y = rand(2, 3), rand(2, 3)
    np.testing.assert_allclose(run(mod, x, y).numpy(), -np.exp(x + y), rtol=1e-6)


PARTITIONED = """#[version = "0.0.5"]
def @main(%a: Tensor[(3), float32], %b: Tensor[(3), float32]) -> Tensor[(3), float32] {
  %0 = @tvmgen_default_ccompiler_main_0(%a, %b) /* ty=Tensor[(3), float32] */;
  exp(%0) /* ty=Tensor[(3), float32] */
}

def @tvmgen_default_ccompiler_main_0(%ccompiler_0_i0: Tensor[(3), float32], %ccompiler_0_i1: Tensor[(3), float32], Compiler="ccompiler", Primitive=1, Inline=1, global_symbol="tvmgen_default_ccompiler_main_0") -> Tensor[(3), float32] {
  %1 = add(%ccompiler_0_i0, %ccompiler_0_i1) /* ty=Tensor[(3), float32] */;
  multiply(%1, %ccompiler_0_i1) /* ty=Tensor[(3), float32] */
}
"""


def test_partitioned_module_keeps_its_function_attributes() -> None:
    mod = parse(PARTITIONED)
    region = mod["tvmgen_default_ccompiler_main_0"]
    assert region.attrs["Compiler"] == "ccompiler"
    assert region.attrs["global_symbol"] == "tvmgen_default_ccompiler_main_0"
    assert region.attrs["Primitive"] == 1 and region.attrs["Inline"] == 1
    a, b = rand(3), rand(3)
    np.testing.assert_allclose(run(mod, a, b).numpy(), np.exp((a + b) * b), rtol=1e-6)


def test_compiler_annotations_equal_the_api_program() -> None:
    text = """
    def @main(%a: Tensor[(3), float32], %b: Tensor[(3), float32]) {
      %0 = annotation.compiler_begin(%a, compiler="ccompiler");
      %1 = annotation.compiler_begin(%b, compiler="ccompiler");
      %2 = add(%0, %1);
      %3 = annotation.compiler_end(%2, compiler="ccompiler");
      exp(%3)
    }
    """
    a, b = relay.var("a", shape=(3,)), relay.var("b", shape=(3,))
    t = "ccompiler"
    add = compiler_end(relay.add(compiler_begin(a, t), compiler_begin(b, t)), t)
    built = tvm.IRModule.from_expr(relay.Function([a, b], relay.exp(add)))
    assert tvm.ir.structural_equal(parse(text), built)


def test_let_scalar_constants_and_attribute_values() -> None:
    text = """
    // a let chain over int64 and float16 values
    def @main(%i: Tensor[(4), int64], %h: Tensor[(2, 2), float16]) -> (Tensor[(4), int64], Tensor[(2), float16], Tensor[(4), bool]) {
      let %j: Tensor[(4), int64] = multiply(%i, 2i64);
      let %k = add(%j, -1i64) /* span=from_onnx:0:0 */;
      %0 = add(%h, 3.5f16);
      %1 = mean(%0, axis=[1], keepdims=False, exclude=False);
      %2 = greater(%k, 0i64);
      (%k, %1, logical_not(%2))
    }
    """
    mod = parse(text)
    assert mod["main"].checked_type.ret_type == relay.TupleType(
        [
            relay.TensorType((4,), "int64"),
            relay.TensorType((2,), "float16"),
            relay.TensorType((4,), "bool"),
        ]
    )
    i = np.array([-1, 0, 1, 5], "int64")
    h = rand(2, 2).astype("float16")
    k, m, n = run(mod, i, h)
    np.testing.assert_array_equal(k.numpy(), i * 2 - 1)
    np.testing.assert_allclose(m.numpy(), (h + np.float16(3.5)).mean(axis=1), rtol=1e-2)
    assert m.numpy().dtype == np.float16
    np.testing.assert_array_equal(n.numpy(), ~(i * 2 - 1 > 0))


def test_pad_value_operand_clip_and_resize() -> None:
    text = """
    def @main(%x: Tensor[(1, 1, 2, 2), float32]) {
      %0 = nn.pad(%x, 7f, pad_width=[[0, 0], [0, 0], [1, 1], [0, 0]]);
      %1 = clip(%0, a_min=-1f, a_max=5f);
      image.resize2d(%1, size=[8, 4], roi=[0f, 0f, 0f, 0f], method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="floor", cubic_alpha=-0.5f, cubic_exclude=0, extrapolation_value=0f, out_dtype="")
    }
    """
    x = rand(1, 1, 2, 2)
    clipped = np.clip(np.pad(x, ((0, 0), (0, 0), (1, 1), (0, 0)), constant_values=7.0), -1, 5)
    expected = clipped.repeat(2, axis=2).repeat(2, axis=3)
    np.testing.assert_allclose(run(parse(text), x).numpy(), expected)


def test_fromtext_and_tvm_parser_parse_read_the_same_module() -> None:
    by_relay = relay.fromtext(CONV_BLOCK)
    by_parser = tvm.parser.parse(CONV_BLOCK)
    assert tvm.ir.structural_equal(by_relay, by_parser)
    assert tvm.ir.structural_equal(by_relay, parse(CONV_BLOCK))


# ---------------------------------------------------------------------------------------------
# Errors


def test_syntax_error_is_located_with_a_caret() -> None:
    error = error_of("def @main(%x: Tensor[(2), float32]) {\n  %0 = nn.relu(%x)\n  %0\n}\n")
    (diagnostic,) = error.diagnostics
    assert diagnostic.location is not None
    assert (diagnostic.location.line, diagnostic.location.column) == (3, 3)
    assert "unexpected '%0'" in diagnostic.message and "';'" in diagnostic.message
    assert error.render().splitlines() == [
        f"model.relay:3:3: error: {diagnostic.message}",
        "  %0",
        "  ^",
    ]


@pytest.mark.parametrize(
    ("body", "message", "column"),
    [
        ("nn.relux(%x)", "unknown operator 'nn.relux'; did you mean 'nn.relu'?", 3),
        ("nn.softmax(%x, axes=0)", "'nn.softmax' has no attribute 'axes'", 3),
        ("add(%x, %y)", "undefined variable %y", 11),
        (
            "add(%x, meta[relay.Constant][0])",
            "is not in the meta table (0 entries of relay.Constant)",
            11,
        ),
        ("@nope(%x)", "undefined function @nope", 3),
        ("add(%x, %x).0", "no field 0", 15),
    ],
)
def test_semantic_errors_name_the_problem_at_its_token(
    body: str, message: str, column: int
) -> None:
    error = error_of(f"def @main(%x: Tensor[(2), float32]) {{\n  {body}\n}}\n")
    rendered = error.render()
    assert f"model.relay:2:{column}: error: " in rendered and message in rendered
    assert "Traceback" not in rendered


def test_ill_typed_call_reports_the_op_message() -> None:
    text = """def @main(%a: Tensor[(2, 3), float32], %b: Tensor[(4), float32]) {
  %0 = nn.relu(%a);
  add(%0, %b) /* ty=Tensor[(2, 3), float32] */
}"""
    error = error_of(text)
    assert str(error) == (
        "model.relay:3:3: error: 'relay.add' op operand shapes do not broadcast: 2x3 vs 4"
    )


def test_declared_result_type_is_checked() -> None:
    text = "def @main(%a: Tensor[(2), float32]) -> Tensor[(3), float32] {\n  nn.relu(%a)\n}"
    error = error_of(text)
    assert str(error).startswith("model.relay:1:1: error: function body has type")


def test_recursion_needs_a_declared_signature() -> None:
    text = "def @f(%a: float32) {\n  @f(%a)\n}"
    assert "recursive call of @f" in str(error_of(text))
    mod = parse("def @f(%a: float32) -> float32 {\n  @f(%a)\n}")
    assert "func.call @f(%a)" in str(mod)


def test_let_scope_in_parentheses() -> None:
    """`%0 = (let %v = e; body);`, as TVM prints a let used as an operand: it computes like
    the let, and its bindings are local to the parentheses."""
    text = """#[version = "0.0.5"]
def @main(%y: Tensor[(3), float32]) {
  %0 = (
    let %v = multiply(%y, 2f);
    add(%v, 1f)
  );
  add(%0, %0)
}"""
    mod = parse(text)
    y = rand(3)
    np.testing.assert_allclose(run(mod, y), 2 * (2 * y + 1), rtol=1e-6)
    fn = relay.parse_expr(text.replace("def @main", "fn "))
    printed = fn.astext()  # printed back the same way
    assert "%1 = (\n" in printed and "let %v = %0;" in printed
    with pytest.raises(DiagnosticError, match="undefined variable %v"):
        parse(text.replace("add(%0, %0)", "add(%0, %v)"))


def test_incomplete_type() -> None:
    """`_` declares no type (it is inferred), as TVM reads it; only as a whole annotation."""
    fn = relay.parse_expr("fn (%x: _, %y: Tensor[(2), float32]) -> _ { add(%x, %y) }")
    assert fn.params[0].type_annotation is None
    assert str(fn.params[1].type_annotation) == "Tensor[(2), float32]"
    with pytest.raises(DiagnosticError, match="incomplete type `_` can only be a whole"):
        relay.parse_expr("fn (%x: (_, float32)) { %x }")
