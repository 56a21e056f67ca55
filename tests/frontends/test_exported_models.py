"""Models exported by torch's two ONNX exporters, from Hugging Face transformers, timm and
torch.nn (tests/data/exported, made by benchmarks/export_models.py: random weights, tiny
configurations), imported, compiled with relay.build and run, against the outputs
onnxruntime gave at export time; the relay interpreter too.

These are inputs xtvm did not write: the dynamo exporter's idioms (GatherND padding masks,
IsNaN-guarded softmax, Gemm for 2-d linears, opset-23 Attention and RMSNormalization) and
the TorchScript exporter's (Shape/ConstantOfShape/Expand chains folded at import, Sin/Cos
rotary tables, Mod in Swin's windows).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "exported"
MODELS = [
    "bert",
    "distilbert",
    "gpt2",
    "t5_encoder",
    "llama",
    "whisper_encoder",
    "vit",
    "swin",
    "mobilenetv3",
    "efficientnet",
    "convnext",
    "lstm",
    "gru",
]
FILES = [
    *(f"{m}.{e}" for m in MODELS for e in ("dynamo", "torchscript")),
    *(f"{m}.dynamo.opset23" for m in ("bert", "llama", "vit")),
]
# Ops each file must hold, so that the file keeps covering what it was added for.
SIGNATURE = {
    "bert.dynamo": {"GatherND", "IsNaN", "Gelu"},
    "bert.torchscript": {"ConstantOfShape", "Expand", "IsNaN"},
    "llama.torchscript": {"Sin", "Cos"},
    "llama.dynamo.opset23": {"Attention", "RMSNormalization"},
    "bert.dynamo.opset23": {"Attention"},
    "vit.dynamo.opset23": {"Attention"},
    "swin.torchscript": {"Mod"},
    "lstm.dynamo": {"LSTM"},
    "lstm.torchscript": {"LSTM"},
    "gru.dynamo": {"GRU"},
    "gru.torchscript": {"GRU"},
}


def reference(name: str) -> tuple[dict[str, np.ndarray], list[np.ndarray]]:
    """The inputs (by graph input name) and onnxruntime's outputs stored beside `name`."""
    with np.load(DATA / f"{name}.npz", allow_pickle=False) as arrays:
        inputs = {k.removeprefix("in__"): arrays[k] for k in arrays.files if k.startswith("in__")}
        count = sum(k.startswith("out__") for k in arrays.files)
        outputs = [arrays[f"out__{i}"] for i in range(count)]
    return inputs, outputs


def assert_close(got: list[np.ndarray], expected: list[np.ndarray]) -> None:
    """Each output within 1e-4 of the largest magnitude of that output."""
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.shape == e.shape and g.dtype == e.dtype, (g.shape, g.dtype, e.shape, e.dtype)
        np.testing.assert_allclose(g, e, rtol=0, atol=1e-4 * float(np.abs(e).max()))


def test_the_data_directory_holds_exactly_the_listed_models() -> None:
    found = sorted(p.name.removesuffix(".onnx") for p in DATA.glob("*.onnx"))
    assert found == sorted(FILES)
    assert sorted(p.name.removesuffix(".npz") for p in DATA.glob("*.npz")) == sorted(FILES)


@pytest.mark.parametrize("name", sorted(SIGNATURE))
def test_files_hold_the_ops_they_cover(name: str) -> None:
    model = onnx.load(str(DATA / f"{name}.onnx"))
    assert SIGNATURE[name] <= {n.op_type for n in model.graph.node}


def test_folding_log_of_zero_is_quiet() -> None:
    """T5's relative position buckets take log(0) on constants and discard it: the import
    folds them without numpy warnings."""
    from xtvm.api.relay.frontend import from_onnx

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from_onnx(DATA / "t5_encoder.torchscript.onnx")


@pytest.mark.parametrize("name", FILES)
def test_exported_model_compiles_and_matches_onnxruntime(name: str) -> None:
    import xtvm as tvm
    from xtvm import relay
    from xtvm.api.relay.frontend import from_onnx
    from xtvm.contrib import graph_executor
    from xtvm.runtime.relay_interpreter import evaluate

    inputs, expected = reference(name)
    mod, params = from_onnx(DATA / f"{name}.onnx")
    assert_close(list(evaluate(mod.xdsl, inputs, params=params)), expected)

    factory = relay.build(mod, target="llvm", params=params)
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    for key, value in inputs.items():
        module.set_input(key, value)
    module.run()
    assert module.get_num_outputs() == len(expected)
    assert_close([module.get_output(i).numpy() for i in range(len(expected))], expected)
