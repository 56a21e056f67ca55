"""The pass and backend fuzz campaign (`benchmarks/fuzz_passes.py`) on a few hundred cases.

Valid but unusual inputs through the pass pipelines, the tools and relay.build must end as ok
or as a located user error: no internal error, hang, crash, unlocated diagnostic or wrong
result. The cases are the same on every run (seed 0), in a worker process as in the benchmark.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
# Cases per family (the cheap pass cases more); together about a minute.
CASES = {"passes": 200, "mutate": 80, "relay": 60, "onnx": 60}


def fuzz_passes() -> ModuleType:
    name = "xtvm_benchmark_fuzz_passes"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "fuzz_passes.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("family", sorted(CASES))
def test_campaign_finds_no_failures(family: str) -> None:
    fuzz = fuzz_passes()
    campaign = fuzz.run_campaign(CASES[family], seed=0, timeout=60, families=(family,))
    counts = {kind: campaign.total(kind) for kind in fuzz.CLASSES}
    assert sum(counts.values()) == CASES[family]
    assert counts["ok"] > 0, counts
    failures = "\n\n".join(fuzz.iter_findings(campaign))
    assert not campaign.findings, f"{counts}\n\n{failures}"


def test_worker_restarts_after_a_hang() -> None:
    # A case over its time limit is a hang; the next case runs in a fresh worker.
    fuzz = fuzz_passes()
    campaign = fuzz.run_campaign(2, seed=0, timeout=0.001, families=("passes",))
    assert campaign.total("hang") == 2
    assert [key.split(":")[0] for key in campaign.findings] == ["hang"]


def test_onnx_oracle_defers_to_the_reference_where_nan_arises() -> None:
    # onnxruntime's ReduceMax keeps a NaN only where it comes first in a row; numpy and the
    # ONNX reference keep every NaN. Outputs that differ from onnxruntime in NaN only are
    # checked against the reference instead; any other difference stays a difference.
    from onnx import TensorProto, helper

    fuzz = fuzz_passes()
    nan = float("nan")
    x = np.array([[1, nan, nan], [nan, 1, 2], [1, 2, nan]], "float32")
    node = helper.make_node("ReduceMax", ["t0"], ["y"], axes=[-1], keepdims=0)
    graph = helper.make_graph(
        [node],
        "reduce",
        [helper.make_tensor_value_info("t0", TensorProto.FLOAT, [3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    got = [np.max(x, axis=-1)]
    onnxruntime_like = [np.array([1, nan, 2], "float32")]
    assert "NaN at 2 positions" in fuzz.compare(got, onnxruntime_like)
    assert fuzz.differ_in_nan_only(got, onnxruntime_like)
    assert fuzz.compare(got, fuzz.onnx_reference(model, x)) is None
    assert not fuzz.differ_in_nan_only([np.array([0, nan, 2], "float32")], onnxruntime_like)
