"""TVM's `tvm.testing` helpers, so that TVM's own tests run with `import xtvm as tvm`.

Targets are those this machine runs: `llvm` always, `cuda` where a GPU exists. Decorators that
ask for hardware xtvm does not model (Tensor Cores, AVX-512 flavours, ARM dot products) skip,
saying why; `uses_gpu` and `known_failing_targets` mark nothing.
"""

from __future__ import annotations

import inspect
import itertools
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from xtvm.runtime import ndarray as nd

_counter = itertools.count()


def _numpy(value: object) -> object:
    return value.numpy() if isinstance(value, nd.NDArray) else value


def assert_allclose(
    actual: object, desired: object, rtol: float = 1e-7, atol: float = 1e-7
) -> None:
    """numpy's assert_allclose on arrays or NDArrays; shapes must agree exactly."""
    actual, desired = np.asanyarray(_numpy(actual)), np.asanyarray(_numpy(desired))
    np.testing.assert_allclose(actual.shape, desired.shape)
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol, verbose=True)


def enabled_targets() -> list[tuple[str, nd.Device]]:
    """(target, device) pairs this machine runs."""
    targets = [("llvm", nd.cpu(0))]
    if nd.cuda_available():
        targets.append(("cuda", nd.cuda(0)))
    return targets


def device_enabled(target: str) -> bool:
    kind = str(target).split()[0]
    return any(kind == name for name, _ in enabled_targets())


def uses_gpu(func: Callable[..., Any]) -> Callable[..., Any]:
    return func


def requires_llvm(func: Callable[..., Any]) -> Callable[..., Any]:
    return func


def skip_if_wheel_test(func: Callable[..., Any]) -> Callable[..., Any]:
    return func


def _requires(available: bool, reason: str) -> Callable[..., Any]:
    def decorator(func: Callable[..., Any] | None = None, *args: object) -> Any:
        mark = pytest.mark.skipif(not available, reason=reason)
        return mark(func) if callable(func) else mark

    return decorator


requires_gpu = _requires(nd.cuda_available(), "needs a CUDA GPU")
requires_cuda = requires_gpu
requires_tensorcore = _requires(False, "xtvm does not model Tensor Cores")
requires_x86 = _requires(True, "")
requires_skylake_avx512 = _requires(False, "needs an AVX-512 target xtvm does not model")
requires_cascadelake = _requires(False, "needs a Cascade Lake target xtvm does not model")
requires_arm_dot = _requires(False, "needs an ARM dot-product target xtvm does not model")
requires_x = requires_skylake_avx512


def known_failing_targets(*targets: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return lambda func: func


def parametrize_targets(*args: Any) -> Any:
    """`@parametrize_targets` or `@parametrize_targets("llvm", "cuda")`: the test takes
    `target` and `dev`, once per enabled target (of those named)."""

    def decorate(func: Callable[..., Any], names: Sequence[str] | None) -> Any:
        pairs = [(t, d) for t, d in enabled_targets() if names is None or t in names]
        params = inspect.signature(func).parameters
        if "dev" in params:
            return pytest.mark.parametrize("target,dev", pairs, ids=[t for t, _ in pairs])(func)
        return pytest.mark.parametrize("target", [t for t, _ in pairs])(func)

    if len(args) == 1 and callable(args[0]):
        return decorate(args[0], None)
    return lambda func: decorate(func, [str(a).split()[0] for a in args])


def _publish(name: str, fixture: Any) -> None:
    """Put `fixture` in the calling test module under `name`, where pytest finds it."""
    frame = inspect.currentframe()
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    assert frame is not None
    frame.f_globals[name] = fixture


def _in_class_body() -> bool:
    """Whether the nearest caller outside this module is a class body."""
    frame = inspect.currentframe()
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    return (
        frame is not None
        and "__qualname__" in frame.f_locals
        and frame.f_locals is not (frame.f_globals)
    )


def _field(
    value_sets: Sequence[Sequence[object]], position: int, index_name: str
) -> Callable[..., object]:
    def field(*args: object, **kwargs: int) -> object:
        return value_sets[kwargs[index_name]][position]

    return field


def parameter(*values: object, ids: Sequence[str] | None = None) -> Any:
    """A fixture taking each of `values` in turn (TVM's `tvm.testing.parameter`)."""

    def as_fixture(request: pytest.FixtureRequest) -> object:
        return request.param

    def as_method(self: object, request: pytest.FixtureRequest) -> object:
        return request.param

    function = as_method if _in_class_body() else as_fixture
    return pytest.fixture(function, params=list(values), ids=ids)


def parameters(*value_sets: Sequence[object], ids: Sequence[str] | None = None) -> tuple[Any, ...]:
    """Fixtures that take the values of each set together (`a, b = parameters((1, 2), ...)`)."""
    index_name = f"_xtvm_parameters_{next(_counter)}"

    def index(request: pytest.FixtureRequest) -> int:
        return request.param

    _publish(index_name, pytest.fixture(index, params=range(len(value_sets)), ids=ids))
    # pytest reads a fixture's dependencies from its signature: each field needs the index.
    # In a class body the fixture is a method, so its signature starts with `self`.
    signature = [inspect.Parameter(index_name, inspect.Parameter.KEYWORD_ONLY)]
    if _in_class_body():
        signature.insert(0, inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY))
    fixtures = []
    for position in range(len(value_sets[0])):
        field = _field(value_sets, position, index_name)
        field.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
        fixtures.append(pytest.fixture(field))
    return tuple(fixtures)


def fixture(func: Callable[..., Any] | None = None, *, cache_return_value: bool = False) -> Any:
    """TVM's `tvm.testing.fixture`: a pytest fixture (cached or not, the value is the same)."""
    if func is None:
        return lambda f: pytest.fixture(f)
    return pytest.fixture(func)


def main() -> None:
    """Run the calling test file under pytest, as TVM's test files end."""
    sys.exit(pytest.main([sys.argv[0], *sys.argv[1:]]))
