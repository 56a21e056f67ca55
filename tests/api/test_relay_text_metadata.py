"""The `#[metadata]` section of TVM's Relay text: constants print as meta references with
their tensors in TVM's JSON/base64 NDArray form, read back bit for bit; malformed sections
are located DiagnosticErrors."""

import base64
import json
from collections.abc import Callable

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay
from xtvm.api.relay.metadata import decode_array, encode_array

# TVM 0.13's save_json blob of float32 [[0, 1, 2], [3, 4, 5]], as its printer writes it.
TVM_BLOB = (
    "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQACAAAAAAAAAAMAAAAAAAAAGAAAAAAAAAAAAAAAAACAPwAAAEAA"
    "AEBAAACAQAAAoEA="
)


def module_with_constants() -> tuple[tvm.IRModule, np.ndarray, np.ndarray]:
    a = np.random.default_rng(0).standard_normal((2, 3)).astype("float32")
    b = np.arange(6, dtype="int8").reshape(2, 3)
    x = relay.var("x", shape=(2, 3))
    c = relay.const(a)
    body = relay.add(relay.add(x, c), c)
    body = relay.add(body, relay.cast(relay.const(b), "float32"))
    return tvm.IRModule.from_expr(relay.Function([x], body)), a, b


def test_module_round_trips_with_its_constants() -> None:
    mod, a, b = module_with_constants()
    text = mod.astext()
    assert "#[metadata]" in text
    assert text.count("meta[relay.Constant][0]") == 2  # one entry for a constant used twice
    back = tvm.parser.parse(text)
    tvm.ir.assert_structural_equal(back, mod)
    x = np.ones((2, 3), "float32")
    out = relay.create_executor("graph", mod=back).evaluate()(x)
    np.testing.assert_allclose(out.numpy(), x + a + a + b, rtol=1e-6)
    entries = back.astext().partition("#[metadata]")[2]
    assert entries == text.partition("#[metadata]")[2]  # the tensors, bit for bit


def test_expression_text_and_str() -> None:
    c = relay.const(np.array([1, 2, 3], "int32"))
    assert "#[metadata]" in c.astext()
    tvm.ir.assert_structural_equal(relay.parse_expr(c.astext()), c)
    assert "#[metadata]" not in str(c) and "meta[relay.Constant][0]" in str(c)
    assert "#[metadata]" not in c.astext(show_meta_data=False)


def test_reads_tvms_blob() -> None:
    np.testing.assert_array_equal(
        decode_array(TVM_BLOB), np.arange(6, dtype="float32").reshape(2, 3)
    )
    assert encode_array(np.arange(6, dtype="float32").reshape(2, 3)) == TVM_BLOB


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "int64", "float16", "float64"])
def test_blob_round_trip(dtype: str) -> None:
    data = (np.arange(12) % 3).reshape(3, 4).astype(dtype)
    back = decode_array(encode_array(data))
    assert back.dtype == data.dtype
    np.testing.assert_array_equal(back, data)


def test_init_meta_table() -> None:
    c = relay.const(np.full((2, 3), 7, "float32"))
    text = (
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(2, 3), float32]) { add(%x, meta[relay.Constant][0]) }"
    )
    mod = tvm.relay.parse(text, "from_string", None, {"relay.Constant": [c]})
    np.testing.assert_array_equal(mod["main"].body.args[1].data.numpy(), c.data.numpy())
    with pytest.raises(tvm.error.DiagnosticError, match=r"init_meta_table: .*only lists"):
        tvm.relay.parse(text, "from_string", None, {"relay.Constant": [1]})


def section_with(blob: str) -> str:
    mod, _, _ = module_with_constants()
    head, _, tail = mod.astext().partition("#[metadata]")
    section = json.loads(tail)
    section["b64ndarrays"][0] = blob
    return head + "#[metadata]\n" + json.dumps(section)


def tampered(edit: Callable[[bytearray], None]) -> str:
    raw = bytearray(base64.b64decode(TVM_BLOB))
    edit(raw)
    return base64.b64encode(bytes(raw)).decode()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (section_with("not base64!"), "not base64"),
        (section_with(TVM_BLOB[:40]), "truncated"),
        (section_with(tampered(lambda r: r.__setitem__(0, 0))), "magic"),
        (section_with(tampered(lambda r: r.__setitem__(40, 99))), "size"),
        (section_with(TVM_BLOB[:-8]), "data does not match"),
        ('#[version = "0.0.5"]\ndef @main() { 0 }\n#[metadata]\n{"root": 7}', "not TVM's format"),
        ('#[version = "0.0.5"]\ndef @main() { 0 }\n#[metadata]\n[1, 2', "not TVM's format"),
    ],
)
def test_malformed_sections_are_diagnostics(text: str, message: str) -> None:
    with pytest.raises(tvm.error.DiagnosticError, match=message):
        tvm.parser.parse(text)


def test_missing_entry_is_located() -> None:
    text = (
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(2, 3), float32]) {\n  add(%x, meta[relay.Constant][3])\n}"
    )
    with pytest.raises(tvm.error.DiagnosticError, match=r"3:\d+: .*not in the meta table"):
        tvm.parser.parse(text)


def test_conv2d_prints_channels_and_kernel_size() -> None:
    x = relay.var("x", shape=(1, 4, 8, 8))
    w = relay.var("w")
    f = relay.Function([x, w], relay.nn.conv2d(x, w, channels=2, kernel_size=(3, 3)))
    text = f.astext()
    assert "channels=2" in text and "kernel_size=[3, 3]" in text
    tvm.ir.assert_structural_equal(relay.parse_expr(text), f, map_free_vars=True)


def test_slash_in_local_names() -> None:
    """TVM's identifiers take `/` past their first character (names from TensorFlow)."""
    x, y = relay.var("base/x", shape=(2,)), relay.var("base/y", shape=(2,))
    e = relay.divide(x, y)
    text = e.astext()
    assert "%base/x" in text and "%base/y" in text
    tvm.ir.assert_structural_equal(relay.parse_expr(text), e, map_free_vars=True)
    assert "%_lead" not in relay.var("/lead").astext() and "%lead" in relay.var("/lead").astext()


def size_var_function() -> tuple[relay.Function, object, object]:
    n, m = tvm.te.size_var("n"), tvm.te.size_var("m", "int64")
    x = relay.var("x", shape=(n, 3))
    y = relay.var("y", shape=(m, n))
    c = relay.const(np.arange(6, dtype="float32").reshape(2, 3))
    return relay.Function([x, y], relay.Tuple([x + relay.const(1.0), y, c])), n, m


def test_size_variables_print_as_meta_references_and_read_back() -> None:
    """TVM prints a `te.size_var` dimension as `meta[tir.SizeVar][i]`, its name and dtype in
    the metadata section (beside the constants); the text reads back to the same shapes."""
    f, _, _ = size_var_function()
    text = f.astext()
    assert "Tensor[(meta[tir.SizeVar][0], 3), float32]" in text
    assert "Tensor[(meta[tir.SizeVar][1], meta[tir.SizeVar][0]), float32]" in text
    assert "meta[relay.Constant][0]" in text
    assert "meta[tir.SizeVar][0]" in str(f) and "type_key" not in str(f)
    back = relay.parse_expr(text)
    tvm.ir.assert_structural_equal(back, f, map_free_vars=True)
    dims = [p.type_annotation.shape for p in back.params]
    assert (dims[0][0].name, dims[0][0].dtype) == ("n", "int32")
    assert (dims[1][0].name, dims[1][0].dtype) == ("m", "int64")
    assert dims[0][0] is dims[1][1]  # one variable, as in the printed program
    np.testing.assert_array_equal(back.body.fields[2].data.numpy(), f.body.fields[2].data.numpy())
    # a module holds its functions in xtvm's IR, whose dynamic dimensions keep no names
    mod = tvm.IRModule.from_expr(f)
    assert "Tensor[(?, ?), float32]" in mod.astext()


def test_size_variables_from_a_meta_table_and_bad_ones() -> None:
    n = tvm.te.size_var("n")
    text = '#[version = "0.0.5"]\nfn (%x: Tensor[(meta[tir.SizeVar][0], 2), float32]) { %x }'
    parsed = tvm.relay.parse(
        text.replace("fn (", "def @main(", 1), "from_string", None, {"tir.SizeVar": [n]}
    )
    assert not isinstance(parsed["main"].params[0].type_annotation.shape[0], int)
    with pytest.raises(tvm.error.DiagnosticError, match=r"not in the meta table"):
        tvm.relay.parse(text.replace("fn (", "def @main(", 1))
    section = json.loads(size_var_function()[0].astext().split("#[metadata]")[1])
    var_node = next(node for node in section["nodes"] if node["type_key"] == "tir.SizeVar")
    var_node["attrs"]["dtype"] = "float32"
    bad = text.replace("fn (", "def @main(", 1) + "\n#[metadata]\n" + json.dumps(section)
    with pytest.raises(tvm.error.DiagnosticError, match="size variable is malformed"):
        tvm.relay.parse(bad)
