"""The bundled examples run, and the quick-start pipeline keeps the graph's meaning."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

from xtvm.passes import all_passes
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing.passes import CTX, run

EXAMPLES = Path(__file__).parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))
examples_make_cnn = importlib.import_module("make_cnn")
sys.modules["examples_make_cnn"] = examples_make_cnn
QUICKSTART = ("relay-simplify-inference", "relay-fold-constant", "relay-fuse-ops")


def test_quickstart_compiles_and_runs_the_bundled_model(tmp_path: Path) -> None:
    """The README's first command: xtvm-compile then xtvm-run, the same as onnxruntime."""
    import onnx
    import onnxruntime
    from examples_make_cnn import make_model

    from xtvm.tools import compile as xtvm_compile
    from xtvm.tools import run as xtvm_run

    assert onnx.load(EXAMPLES / "cnn.onnx") == make_model()  # the bundled file is reproducible
    library, out = tmp_path / "cnn.so", tmp_path / "prob.npy"
    assert xtvm_compile.main([str(EXAMPLES / "cnn.onnx"), "-o", str(library)]) == 0
    data = EXAMPLES / "cnn_input.npy"
    assert xtvm_run.main([str(library), "--input", f"data={data}", "--output", str(out)]) == 0
    session = onnxruntime.InferenceSession(str(EXAMPLES / "cnn.onnx"))
    (expected,) = session.run(None, {"data": np.load(data)})
    np.testing.assert_allclose(np.load(out), expected, rtol=1e-5, atol=1e-6)


def test_quickstart_pipeline_preserves_results() -> None:
    text = (EXAMPLES / "quickstart.mlir").read_text()
    rng = np.random.default_rng(0)
    inputs = [
        rng.standard_normal((1, 4, 8, 8)).astype(np.float32),
        rng.standard_normal((4, 4, 3, 3)).astype(np.float32),
    ]
    expected = evaluate(CTX.parse(text), inputs)
    registry = all_passes()
    module = run(CTX.parse(text), *(registry[name]()() for name in QUICKSTART))
    functions = [op.sym_name.data for op in module.body.block.ops]
    assert functions == ["fused_nn_conv2d_multiply_add_nn_relu_add", "main"]
    np.testing.assert_allclose(evaluate(module, inputs)[0], expected[0], rtol=1e-5, atol=1e-5)


@pytest.mark.usefixtures("preserve_registries")  # an example registers an accelerator target
def test_readme_python_examples_run() -> None:
    """Every complete ```python example of the README (one that imports xtvm) runs as written."""
    import re

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "import xtvm" in b]
    assert blocks, "the README shows the Python API"
    for block in blocks:
        namespace: dict[str, object] = {}
        exec(compile(block, "README.md", "exec"), namespace)
        out = namespace.get("out")
        assert out is None or out.shape == (1, 8, 8, 8)  # type: ignore[attr-defined]


def test_vta_example_runs_as_a_script() -> None:
    """examples/accelerators/vta/run_gemm.py as a user runs it: a tensorized GEMM and conv2d on
    the simulator, correct, with every counter equal to the schedule's count (ratio 1.000)."""
    import subprocess

    script = EXAMPLES / "accelerators" / "vta" / "run_gemm.py"
    result = subprocess.run(
        [sys.executable, str(script), "--size", "64", "--tile", "32"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("correct (checked against numpy)") == 4
    ratios = [line.split()[-1] for line in result.stdout.splitlines() if "_bytes" in line]
    assert ratios and all(r == "1.000" for r in ratios), result.stdout
