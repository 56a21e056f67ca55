"""The pass registry follows the naming rule of STYLE.md §2, and every pass has its lit test.

A pass `relay-fuse-ops` is registered under that key, has `name = "relay-fuse-ops"`, lives in
`xtvm/passes/relay_fuse_ops.py` as `RelayFuseOpsPass`, and is tested by
`lit_tests/passes/relay-fuse-ops.mlir`. Upstream xDSL passes keep their own module and class
names but follow the rest.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.passes import ModulePass

from xtvm.passes import UPSTREAM_PASSES, all_passes
from xtvm.tools.opt import main, split_pass_flags

ROOT = Path(__file__).resolve().parents[1]
LIT_PASSES = ROOT / "lit_tests" / "passes"
KEBAB = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
REGISTRY = all_passes()


def pass_type(name: str) -> type[ModulePass]:
    return REGISTRY[name]()


def is_own(name: str) -> bool:
    return pass_type(name).__module__.startswith("xtvm.")


OWN = sorted(name for name in REGISTRY if is_own(name))
ALL = sorted(REGISTRY)


@pytest.mark.parametrize("name", ALL)
def test_key_is_the_pass_name_in_kebab_case(name: str) -> None:
    assert pass_type(name).name == name
    assert KEBAB.match(name), f"'{name}' is not kebab-case"


@pytest.mark.parametrize("name", ALL)
def test_every_pass_has_its_lit_test(name: str) -> None:
    assert (LIT_PASSES / f"{name}.mlir").is_file(), f"missing lit_tests/passes/{name}.mlir"


@pytest.mark.parametrize("name", OWN)
def test_own_pass_module_and_class_follow_the_name(name: str) -> None:
    cls = pass_type(name)
    snake = name.replace("-", "_")
    camel = "".join(part.capitalize() for part in name.split("-")) + "Pass"
    assert cls.__module__ == f"xtvm.passes.{snake}"
    assert (ROOT / "xtvm" / "passes" / f"{snake}.py").is_file()
    assert cls.__name__ == camel


@pytest.mark.parametrize("name", OWN)
def test_own_pass_has_a_summary(name: str) -> None:
    # The docstring's first line is what --list-passes prints.
    doc = (pass_type(name).__doc__ or "").strip()
    assert doc, f"pass '{name}' has no docstring"


def test_upstream_passes_are_all_available() -> None:
    # The registry names them without importing xDSL's passes: each must load.
    for name in UPSTREAM_PASSES:
        assert pass_type(name).name == name


HELP_IMPORTS = """
import sys
from xtvm.tools.opt import main
try:
    main(["--help"])
except SystemExit:
    pass
heavy = ("xtvm.passes.", "xtvm.dialects", "xtvm.ir.context", "xdsl.dialects", "xdsl.transforms")
print(sorted(m for m in sys.modules if m.startswith(heavy) and m != "xtvm.passes.pipeline"))
"""


def test_help_imports_no_pass_and_no_dialect(tmp_path: Path) -> None:
    # --help describes the passes from the cached index: start-up stays in milliseconds. The
    # first run builds the index (importing every pass), the second only reads it.
    env = {**os.environ, "XTVM_CACHE_DIR": str(tmp_path)}
    command = [sys.executable, "-c", HELP_IMPORTS]
    first = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    second = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    assert second.stdout.splitlines()[-1] == "[]"
    assert first.stdout.splitlines()[:-1] == second.stdout.splitlines()[:-1]
    assert "Eliminate common subexpressions" in second.stdout


def test_lit_files_are_named_after_a_pass() -> None:
    # `<pass>.mlir`, or `<pass>-<topic>.mlir` for extra files of the same pass (MLIR's habit).
    for path in sorted(LIT_PASSES.glob("*.mlir")):
        stem = path.stem
        owners = [n for n in REGISTRY if stem == n or stem.startswith(n + "-")]
        assert owners, f"{path.name} is named after no registered pass"


def test_list_passes_names_every_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list-passes"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # Pass lines are indented by two spaces, their options by six.
    listed = [line.split()[0] for line in lines[1:] if not line.startswith("   ")]
    assert listed == ALL


def test_unknown_pass_suggests_the_closest(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-p", "cse2", "-"]) == 1
    assert (
        capsys.readouterr().err
        == "-p:1:1: error: unknown pass 'cse2'; did you mean 'cse'?\ncse2\n^\n"
    )


RAISING_PLUGIN = '''
from xdsl.passes import ModulePass


class RaisingPass(ModulePass):
    """Trips over every arith.constant, as a pass with a bug would."""

    name = "test-raise-on-constant"

    def apply(self, ctx, op):
        for inner in op.walk():
            if inner.name == "arith.constant":
                raise KeyError(inner.name)


def xtvm_plugin(registry):
    registry.register_pass(RaisingPass)
'''


def test_pass_exception_is_an_error_at_the_op(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A Python error inside a pass names the pass and points at the op it was processing.
    plugin = tmp_path / "raising.py"
    plugin.write_text(RAISING_PLUGIN)
    source = tmp_path / "in.mlir"
    source.write_text(
        "func.func @f() -> i32 {\n  %c = arith.constant 1 : i32\n  func.return %c : i32\n}\n"
    )
    code = main(["--load-plugin", str(plugin), "-p", "test-raise-on-constant", str(source)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert (
        f"{source}:2:8: error: pass 'test-raise-on-constant' failed on 'arith.constant' op: "
        "'arith.constant'" in err
    )
    assert "  %c = arith.constant 1 : i32\n       ^" in err
    assert "internal error" not in err


def nested_ifs(depth: int) -> str:
    return "func.func @f(%c: i1) {\n" + "scf.if %c {\n" * depth + "}\n" * depth + "func.return\n}\n"


def test_deep_nesting_is_processed_and_deeper_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 400 levels overflow Python's default recursion limit in the parser and the printer.
    limit = sys.getrecursionlimit()
    source = tmp_path / "deep.mlir"
    source.write_text(nested_ifs(400))
    assert main([str(source)]) == 0
    assert capsys.readouterr().out.count("scf.if") == 400
    assert sys.getrecursionlimit() == limit  # the tool leaves the process as it found it
    source.write_text(nested_ifs(1000))
    assert main([str(source)]) == 1
    err = capsys.readouterr().err
    assert f"{source}:1001:1: error: 'scf.if' op is nested more than 1000 ops deep" in err


ADDING_PLUGIN = '''
from xdsl.dialects import func
from xdsl.passes import ModulePass


class AddingPass(ModulePass):
    """Adds a function: a module pass, not one local to a function."""

    name = "test-add-function"

    def apply(self, ctx, op):
        op.body.block.add_op(func.FuncOp("extra", ((), ())))


def xtvm_plugin(registry):
    registry.register_pass(AddingPass)
'''


def test_nested_pass_that_changes_the_module_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # func.func(...) passes see their function alone; adding a function there is an error.
    plugin = tmp_path / "adding.py"
    plugin.write_text(ADDING_PLUGIN)
    source = tmp_path / "in.mlir"
    source.write_text("func.func @f() {\n  func.return\n}\n")
    argv = ["--load-plugin", str(plugin), str(source)]
    assert main([*argv, "-p", "test-add-function"]) == 0  # at the module level it may
    assert "func.func @extra" in capsys.readouterr().out
    assert main([*argv, "-p", "func.func(test-add-function)"]) == 1
    err = capsys.readouterr().err
    assert (
        f"{source}:1:1: error: 'func.func(test-add-function)' changed the ops around the "
        "'func.func' it ran on" in err
    )


def test_pass_flags_leave_the_input_alone() -> None:
    # `--cse FILE` is the flag and the input, never the flag with FILE as its options.
    assert split_pass_flags(["--cse", "in.mlir", "--x", "--", "--cse"], {"cse": object}) == [
        "--cse=",
        "in.mlir",
        "--x",
        "--",
        "--cse",
    ]
