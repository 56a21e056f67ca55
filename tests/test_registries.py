"""The registry snapshots behind the suite's leak check (tests/conftest.py)."""

from __future__ import annotations

from xtvm.passes.byoc_targets import register_op_attr, registered_targets
from xtvm.runtime.registry import get_global_func, register_func
from xtvm.testing import registries


def test_changes_name_what_a_registration_added_and_preserved_takes_it_back() -> None:
    before = registries.snapshot()
    with registries.preserved():
        register_op_attr("nn.relu", "target.leak_check", True)
        register_func("test.registries.leak", lambda: 1)
        assert registries.changes(before, registries.snapshot()) == [
            "xtvm.passes.byoc_targets._TABLE: added 'leak_check'",
            "xtvm.runtime.registry._REGISTRY: added 'test.registries.leak'",
        ]
    assert "leak_check" not in registered_targets()
    assert get_global_func("test.registries.leak", allow_missing=True) is None
    assert registries.changes(before, registries.snapshot()) == []


def test_registering_the_same_predicate_again_is_no_change() -> None:
    # A constant predicate is wrapped in a fresh lambda on each registration: the same one.
    with registries.preserved():
        register_op_attr("nn.relu", "target.leak_check", True)
        once = registries.snapshot()
        register_op_attr("nn.relu", "target.leak_check", True)
        assert registries.changes(once, registries.snapshot()) == []
        register_op_attr("nn.relu", "target.leak_check", False)
        assert registries.changes(once, registries.snapshot()) == [
            "xtvm.passes.byoc_targets._TABLE['leak_check']: changed 'nn.relu'"
        ]
