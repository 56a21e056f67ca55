"""The ONNX backend conformance suite (`onnx.backend.test.BackendTest`) run against xtvm.

Included: every node test whose graph uses only supported op types (and element types relay
has), and the model-zoo models shipped under onnx/backend/test/data/light, checked against
their shipped reference outputs.
"""

from __future__ import annotations

import re

import onnx.backend.test
import pytest

from xtvm.onnx_backend import XtvmBackend, supported_node_tests

pytestmark = pytest.mark.onnx_conformance

# Known failures, each with its reason.
XFAIL: dict[str, str] = {
    r"^test_maxpool_with_argmax_": "the Indices output of MaxPool is not supported",
    r"^test_batchnorm_.*_training_mode_": "training-mode BatchNormalization (inference only)",
    r"^test_training_dropout(_default)?(_mask)?_cpu$": "random dropout in training mode",
    r"^test_einsum_batch_diagonal_": "einsum with ellipsis and repeated indices (diagonals)",
    # its reference takes the largest weighted corner of each sample (onnxruntime's max,
    # which onnxruntime itself warns about), not the largest sample: refused at import
    r"^test_roialign_mode_max_": "RoiAlign max mode: the reference's max differs from roi_align",
    # The expanded function body (plain MatMul, Softmax, ...) fails the same way: float16
    # kernels compiled by LLVM round differently from numpy's float16 steps, here 2 of 192
    # elements one ulp (0.0012) off against rtol 1e-3; the interpreter passes.
    r"^test_attention_4d_causal_fp16(_expanded)?_": "float16: one ulp off in compiled kernels",
}
# Left out, each with its reason: tests whose outcome does not depend on correctness.
EXCLUDE: dict[str, str] = {
    # Its logits are all ~9.5e9, equal in onnxruntime; ours are within 6.5e-7 of them (a few
    # ulps, another summation order), and at that size a difference of one ulp (1024) decides
    # the softmax, so the reference's uniform 0.001 is met or not by the summation order alone
    # (the interpreter missed it, compiled kernels meet it). The logits themselves are checked
    # against onnxruntime in tests/runtime/test_graph_executor.py's light-model tests.
    r"^test_squeezenet_cpu$": "ill-conditioned reference: softmax of logits of ~9.5e9",
}

LIGHT_MODELS = [
    "test_bvlc_alexnet",
    "test_densenet121",
    "test_inception_v1",
    "test_inception_v2",
    "test_resnet50",
    "test_shufflenet",
    "test_squeezenet",
    "test_vgg19",
    "test_zfnet512",
]


@pytest.fixture(autouse=True)
def onnx_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The light models write their test data under ONNX_HOME: keep it out of the home dir."""
    monkeypatch.setenv("ONNX_HOME", str(tmp_path_factory.getbasetemp() / "onnx_home"))


backend_test = onnx.backend.test.BackendTest(XtvmBackend, __name__)
for name in [*supported_node_tests(), *LIGHT_MODELS]:
    backend_test.include(f"^{re.escape(name)}_cpu$")
for pattern in XFAIL:
    backend_test.xfail(pattern)
for pattern in EXCLUDE:
    backend_test.exclude(pattern)

globals().update(backend_test.test_cases)
