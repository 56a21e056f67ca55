"""Names that reach generated code: a symbol holding C (or anything but a C identifier) is
refused with a located error before any source is compiled or library loaded, by every tool,
backend and codegen, so code planted in a name never runs."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr

import xtvm as tvm
from xtvm import relay, te
from xtvm.backends import external
from xtvm.backends.c import render_c
from xtvm.backends.cuda import render_cuda
from xtvm.backends.external import ExternalFunction, register_codegen
from xtvm.dialects.registry import default_context
from xtvm.driver.relay_build import BuildError
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.ir.symbols import c_string_literal, symbol_error
from xtvm.runtime import registry
from xtvm.runtime.module import Param
from xtvm.target.accel import TARGETS
from xtvm.target.loading import load
from xtvm.tools import compile as xtvm_compile
from xtvm.tools import translate as xtvm_translate

CC = shutil.which("gcc") or shutil.which("cc")
KERNEL_ATTRS = (
    "attributes {tir.kernel = {blocks = array<i64: 1, 1, 1>, threads = array<i64: 1, 1, 1>}} "
)


def planted(marker: Path, head: str = "f") -> str:
    """A symbol name that, pasted into C, defines a constructor creating `marker`."""
    return (
        f'{head}(){{}} __attribute__((constructor)) void x(void){{system("touch {marker}");}} '
        "void g"
    )


def ir_string(text: str) -> str:
    """`text` as an MLIR string literal."""
    return '"' + text.replace('"', "\\22") + '"'


def ir_name(name: str) -> str:
    """`name` as an MLIR quoted symbol."""
    return "@" + ir_string(name)


@pytest.fixture
def marker(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "MARK"
    yield path
    assert not path.exists(), "code from a symbol name ran"


# ---------------------------------------------------------------------------------------------
# The check itself


@pytest.mark.parametrize("name", ["f", "_k1", "tvmgen_default_ccompiler_main_0", "A_dim0"])
def test_c_identifiers_pass(name: str) -> None:
    assert symbol_error(name, "name") is None


@pytest.mark.parametrize(
    "name", ["", "1f", "a.b", "a-b", "a b", "f()", "é", "a\nb", "x/../y", "int", "class"]
)
def test_other_names_are_refused(name: str) -> None:
    message = symbol_error(name, "function name")
    assert message is not None and message.startswith("function name ")
    assert "\n" not in message


@pytest.mark.parametrize("target", ["c", "llvm"])
@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("xtvm_module_metadata", "names starting with 'xtvm_' are xtvm's own"),
        ("expf", "is a C library function that generated code calls"),
        ("free", "is a C library function that generated code calls"),
    ],
)
def test_module_functions_keep_clear_of_what_generated_code_defines_and_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str, name: str, why: str
) -> None:
    """Such a function collided with the library's own symbol (an internal error) or was
    called in place of the C library function."""
    source = tmp_path / "kernel.mlir"
    source.write_text(kernel(name))
    assert xtvm_translate.main([str(source), "--target", target]) == 1
    err = capsys.readouterr().err
    assert f"kernel.mlir:1:1: error: the {target.upper()} backend's function name" in err
    assert why in err
    assert symbol_error("xtvm_model_run", "extern function") is None  # a callee may be


@pytest.mark.skipif(CC is None, reason="no C compiler")
def test_c_string_literal_round_trips_any_text(tmp_path: Path) -> None:
    text = 'a"b\\c\nd\re\t??=f\x00g\x7fé*/ #define X'
    program = tmp_path / "p.c"
    program.write_text(
        "#include <stdio.h>\nint main(void) {\n"
        f"  static const char s[] = {c_string_literal(text)};\n"
        "  fwrite(s, 1, sizeof s - 1, stdout);\n  return 0;\n}\n"
    )
    assert CC is not None
    subprocess.run([CC, "-std=c99", "-o", str(tmp_path / "p"), str(program)], check=True)
    out = subprocess.run([str(tmp_path / "p")], capture_output=True, check=True).stdout
    assert out == text.encode()
    assert "\n" not in c_string_literal(text)


# ---------------------------------------------------------------------------------------------
# xtvm-translate and the tir backends


def kernel(name: str, extern: str = "tanhf", attrs: str = "") -> str:
    return f"""func.func {ir_name(name)}(%A: memref<4xf32>) {attrs}{{
  %c0 = arith.constant 0 : index
  %a = memref.load %A[%c0] : memref<4xf32>
  %b = tir.call_extern {ir_string(extern)}(%a) : (f32) -> f32
  memref.store %b, %A[%c0] : memref<4xf32>
  func.return
}}
"""


@pytest.mark.parametrize("target", ["c", "cuda", "llvm"])
@pytest.mark.parametrize("where", ["function", "extern"])
def test_translate_refuses_code_in_a_name(
    tmp_path: Path, marker: Path, capsys: pytest.CaptureFixture[str], target: str, where: str
) -> None:
    attrs = KERNEL_ATTRS if target == "cuda" else ""
    bad = planted(marker)
    text = kernel(bad, attrs=attrs) if where == "function" else kernel("k", bad, attrs)
    source = tmp_path / "kernel.mlir"
    source.write_text(text)
    out = tmp_path / "out.txt"
    assert xtvm_translate.main([str(source), "--target", target, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    line = 1 if where == "function" else 4
    assert f"kernel.mlir:{line}:" in err
    assert "is not a C identifier" in err
    assert "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("target", ["c", "cuda"])
def test_renderers_refuse_a_name_set_through_the_api(target: str) -> None:
    attrs = KERNEL_ATTRS if target == "cuda" else ""
    module = default_context().parse(kernel("k", attrs=attrs))
    function = next(op for op in module.ops if isinstance(op, func.FuncOp))
    function.sym_name = StringAttr("k(){} int y")
    render = render_c if target == "c" else render_cuda
    with pytest.raises(DiagnosticError, match=f"{target.upper()} backend's function name"):
        render(module)


@pytest.mark.parametrize("target", ["llvm", "c"])
def test_tvm_build_refuses_code_in_the_function_name(marker: Path, target: str) -> None:
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] * 2, name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(DiagnosticError, match="is not a C identifier"):
        tvm.build(s, [A, B], target=target, name=planted(marker))


def test_cuda_kernel_outlined_from_a_host_function_inherits_its_checked_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "host.mlir"
    source.write_text(
        f"""func.func {ir_name("h(){} int y")}(%A: memref<64xf32>) {{
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  tir.for %tx = %c0 to %c64 thread_binding "threadIdx.x" {{
    %a = memref.load %A[%tx] : memref<64xf32>
    memref.store %a, %A[%tx] : memref<64xf32>
  }}
  func.return
}}
"""
    )
    assert xtvm_translate.main([str(source), "--target", "cuda"]) == 1
    err = capsys.readouterr().err
    assert "is not a C identifier" in err and "Traceback" not in err


# ---------------------------------------------------------------------------------------------
# xtvm-compile, relay.build and the external codegens (BYOC)


def partitioned(symbol: str, compiler: str = "ccompiler", global_symbol: str | None = None) -> str:
    attrs = f'compiler = "{compiler}"'
    if global_symbol is not None:
        attrs += f", global_symbol = {ir_string(global_symbol)}"
    return f"""func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{
  %0 = func.call {ir_name(symbol)}(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}}
func.func private {ir_name(symbol)}(%x: tensor<4xf32>) -> tensor<4xf32> attributes {{{attrs}}} {{
  %r = relay.nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}}
"""


@pytest.mark.parametrize("via", ["function name", "global_symbol"])
@pytest.mark.parametrize("emit", ["library", "aot"])
def test_xtvm_compile_refuses_code_in_an_external_symbol(
    tmp_path: Path, marker: Path, capsys: pytest.CaptureFixture[str], via: str, emit: str
) -> None:
    bad = planted(marker, "f(void *a, void *b)")
    text = partitioned(bad) if via == "function name" else partitioned("ext", global_symbol=bad)
    source = tmp_path / "model.mlir"
    source.write_text(text)
    out = tmp_path / "model.so"
    assert xtvm_compile.main([str(source), "--emit", emit, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "model.mlir:5:1: error: ccompiler: the external function's symbol" in err
    assert "Traceback" not in err
    assert not out.exists()


@pytest.fixture
def evil_codegen(marker: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A codegen that hands back a symbol holding C (registered in copies of the registries,
    which the test's end restores): the build must not compile it."""
    monkeypatch.setattr(external, "_CODEGENS", dict(external._CODEGENS))
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    symbol = planted(marker, "f(void *a, void *b)")

    @register_codegen("evil")
    def evil(function: func.FuncOp, target: str) -> ExternalFunction:
        return ExternalFunction(
            symbol,
            [Param("x", "float32", (4,)), Param("y", "float32", (4,))],
            f"#include <stdlib.h>\nvoid {symbol}(void *a, void *b) {{}}\n",
        )


@pytest.mark.usefixtures("evil_codegen")
def test_relay_build_refuses_a_codegen_symbol_that_is_not_an_identifier() -> None:
    module = default_context().parse(partitioned("tvmgen_default_evil_main_0", "evil"))
    with pytest.raises(BuildError, match=r"external function symbol .* is not a C identifier"):
        relay.build(module, target="llvm")


# ---------------------------------------------------------------------------------------------
# Accelerator targets


@pytest.mark.parametrize(
    ("line", "text"),
    [
        (1, 'accel.target @"t(){} int y" {\n  accel.memory "spad" size 1024 align 16 : i8\n}\n'),
        (2, 'accel.target @t {\n  accel.memory "s[1]; int z" size 1024 align 16 : i8\n}\n'),
        (
            3,
            'accel.target @t {\n  accel.memory "spad" size 1024 align 16 : i8\n'
            '  accel.dma "load(){} int w" load "spad"\n}\n',
        ),
        (1, 'accel.target @t header "x.h\\22\\0a#include \\22y.h" {\n}\n'),
    ],
    ids=["target", "memory", "dma", "header"],
)
def test_accel_target_names_that_are_not_identifiers_are_refused(
    tmp_path: Path, line: int, text: str
) -> None:
    path = tmp_path / "t.mlir"
    path.write_text(text)
    before = set(TARGETS)
    with pytest.raises(DiagnosticError) as info:
        load(path)
    rendered = info.value.render()
    assert f"t.mlir:{line}:" in rendered
    assert "is not a C identifier" in rendered or "cannot be written in an #include" in rendered
    assert set(TARGETS) == before
