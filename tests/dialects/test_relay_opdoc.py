"""docs/relay-ops.md is what `python -m xtvm.tools.opdoc` generates from the relay op table."""

from __future__ import annotations

from pathlib import Path

from xtvm.dialects import relay
from xtvm.tools import opdoc


def test_committed_reference_is_current() -> None:
    committed = opdoc.DEFAULT_OUTPUT.read_text(encoding="utf-8")
    assert committed == opdoc.render(), (
        "docs/relay-ops.md is stale: run `python -m xtvm.tools.opdoc` and commit the result"
    )


def test_every_op_has_a_section_with_summary_and_example() -> None:
    text = opdoc.render()
    for op in relay.Relay.operations:
        assert f"\n## {op.name}\n" in text
        assert opdoc.summary(op), f"{op.name} has no summary"
        assert opdoc.syntax_example(op).startswith(("%", "relay.")), f"{op.name}: no example"


def test_attributes_show_type_and_default() -> None:
    section = opdoc.section(relay.Conv2dOp)
    assert "| `strides` | `array<i64: ...>` | `Sequence[int]` | `[1, 1]` |" in section
    assert '| `data_layout` | string (`"..."`) | `str` | `"NCHW"` |' in section


def test_check_flag_reports_a_stale_file(tmp_path: Path) -> None:
    page = tmp_path / "relay-ops.md"
    page.write_text("old\n")
    assert opdoc.main(["-o", str(page), "--check"]) == 1
    assert opdoc.main(["-o", str(page)]) == 0
    assert opdoc.main(["-o", str(page), "--check"]) == 0
