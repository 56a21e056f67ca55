"""TVM's tests register global functions (`tvm.register_func`) and operators
(`relay.op.op.register`) and leave them, and TVM's `te.decl_tensor_intrin` has no registry to
leave an entry in (xtvm's does); each test here removes what it registered, so that no test
depends on another's."""

from collections.abc import Iterator

import pytest

from xtvm.api.relay.op.op import registered_names, unregister_new
from xtvm.runtime.registry import list_global_func_names, remove_global_func
from xtvm.testing.plugin import dev, pytest_generate_tests  # noqa: F401  (TVM's plugin)
from xtvm.testing.registries import preserved


@pytest.fixture(autouse=True)
def _forget_registered_functions() -> Iterator[None]:
    before = set(list_global_func_names())
    ops_before = registered_names()
    with preserved():
        yield
    for name in set(list_global_func_names()) - before:
        remove_global_func(name)
    unregister_new(ops_before)


def _normalised(key: str) -> str:
    """`key` with the ids of its parametrization sorted: pytest orders them by how the
    fixtures were collected (the `target` plugin's comes first or last), not by name."""
    name, bracket, ids = key.partition("[")
    return name + bracket + "-".join(sorted(ids.rstrip("]").split("-"))) + "]" if bracket else key


@pytest.fixture(autouse=True)
def _skip_unsupported(request: pytest.FixtureRequest) -> None:
    """An adapted TVM module lists the tests xtvm does not run in `UNSUPPORTED`, each with its
    reason: keyed by test name (`test_pool1d`, `TestConv3D::test_run`) or by one
    parametrization (`test_reduce[graph-std-2]`, its ids in any order)."""
    table: dict[str, str] = getattr(request.module, "UNSUPPORTED", {})
    if not table:
        return
    table = {_normalised(k): v for k, v in table.items()}
    node = request.node
    name = _normalised(node.name)
    function = name.split("[", 1)[0]
    cls = node.cls.__name__ + "::" if node.cls is not None else ""
    for key in (cls + name, name, cls + function, function):
        if key in table:
            pytest.skip(table[key])
