"""Tests marked `cuda` need an NVIDIA GPU: they skip with "no CUDA GPU" where none exists
(`tvm.cuda(0).exist`, which asks the CUDA driver), as TVM's `requires_cuda` does."""

from __future__ import annotations

import pytest


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("cuda") is None:
        return
    from xtvm.api.nd import cuda

    if not cuda(0).exist:
        pytest.skip("no CUDA GPU")
