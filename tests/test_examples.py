"""The bundled examples run, and the quick-start pipeline keeps the graph's meaning."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from xtvm.passes import all_passes
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing.passes import CTX, run

EXAMPLES = Path(__file__).parent.parent / "examples"
QUICKSTART = ("relay-simplify-inference", "relay-fold-constant", "relay-fuse-ops")


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


def test_readme_python_examples_run() -> None:
    """Every complete ```python example of the README (one that imports xtvm) runs as written."""
    import re
    from pathlib import Path

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "import xtvm" in b]
    assert blocks, "the README shows the Python API"
    for block in blocks:
        namespace: dict[str, object] = {}
        exec(compile(block, "README.md", "exec"), namespace)
        out = namespace.get("out")
        assert out is None or out.shape == (1, 8, 8, 8)  # type: ignore[attr-defined]
