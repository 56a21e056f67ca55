"""Suite-wide hooks.

Tests marked `cuda` need an NVIDIA GPU: they skip with "no CUDA GPU" where none exists
(`tvm.cuda(0).exist`, which asks the CUDA driver), as TVM's `requires_cuda` does.

No test may leave a global registration behind (op attributes, global functions, codegens,
accel targets, tensor intrinsics, ...: `xtvm.testing.registries`): every module of xtvm is
imported before the first test, so registrations done at import are the baseline whatever the
test order; each test and each test module is then checked to leave every registry as it found
it. One that does not is failed with what it changed, and the registries are restored so that
the leak does not reach later tests.

The suite verifies the IR after every pass of `run_passes` (`XTVM_VERIFY_EACH_PASS`), so that a
pass breaking an invariant fails its tests by name; builds outside the tests verify at the end.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from xtvm.testing import registries


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("cuda") is None:
        return
    from xtvm.runtime.ndarray import cuda

    if not cuda(0).exist:
        pytest.skip("no CUDA GPU")


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("XTVM_VERIFY_EACH_PASS", "1")
    registries.import_all()


def check_unchanged(before: registries.Snapshot, what: str) -> None:
    """Fail when the registries differ from `before`, after putting them back."""
    leaked = registries.changes(before, registries.snapshot())
    if leaked:
        registries.restore(before)
        pytest.fail(
            f"{what} left global registrations changed (restore them in the test or a "
            "fixture, e.g. with xtvm.testing.registries.preserved()):\n  " + "\n  ".join(leaked),
            pytrace=False,
        )


@pytest.fixture
def preserve_registries() -> Iterator[None]:
    """For tests that register functions, intrinsics or targets of their own: every registry
    is put back as it was when the test ends (`pytest.mark.usefixtures("preserve_registries")`
    for a whole module)."""
    with registries.preserved():
        yield


@pytest.fixture(autouse=True, scope="module")
def module_leaves_registries_unchanged(request: pytest.FixtureRequest) -> Iterator[None]:
    """Module-scoped fixtures may register for the module's tests; not beyond them."""
    before = registries.snapshot()
    yield
    check_unchanged(before, f"test module {request.node.nodeid}")


@pytest.fixture(autouse=True)
def test_leaves_registries_unchanged(request: pytest.FixtureRequest) -> Iterator[None]:
    before = registries.snapshot()
    yield
    check_unchanged(before, f"test {request.node.nodeid}")
