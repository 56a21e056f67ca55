"""TVM's pytest plugin (`pytest_plugins = ["tvm.testing.plugin"]`): a test that takes `target`
(and `dev`) without `@tvm.testing.parametrize_targets` runs once per enabled target, with `dev`
the target's device, as TVM's own test suite runs them."""

from __future__ import annotations

import pytest

from xtvm.runtime import ndarray as nd
from xtvm.testing.utils import enabled_targets


def _parametrized(metafunc: pytest.Metafunc, name: str) -> bool:
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0]
        names = names.split(",") if isinstance(names, str) else names
        if name in [n.strip() for n in names]:
            return True
    return False


def _has_fixture(metafunc: pytest.Metafunc, name: str) -> bool:
    """Whether the test's module or class defines a fixture `name` itself (the plugin's
    `dev` aside)."""
    defs = metafunc.definition._fixtureinfo.name2fixturedefs.get(name, ())
    return any(d.func.__module__ != __name__ for d in defs)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if (
        "target" in metafunc.fixturenames
        and not _parametrized(metafunc, "target")
        and not _has_fixture(metafunc, "target")
    ):
        names = [target for target, _ in enabled_targets()]
        metafunc.parametrize("target", names, scope="function")


@pytest.fixture
def dev(target: str) -> nd.Device:
    """The device of the test's target."""
    return dict(enabled_targets())[str(target).split()[0]]
