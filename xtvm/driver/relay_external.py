"""The external codegens' part of `relay.build` (BYOC): each partitioned function handed to
its codegen, and their C compiled into one library the host kernels' build links or loads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr

from xtvm.driver.relay_graph import BuildError, ModuleLike, module_of
from xtvm.runtime.module import Param

if TYPE_CHECKING:
    from xtvm.backends.external import ExternalFunction
    from xtvm.backends.external.library import ExternalLibrary


@dataclass
class ExternalBuild:
    """The external functions of a module, compiled: by relay function name, and as a library."""

    by_function: dict[str, ExternalFunction]
    library: ExternalLibrary

    @property
    def signatures(self) -> dict[str, list[Param]]:
        return self.library.signatures


def inline_composites(function: func.FuncOp, module: ModuleOp) -> func.FuncOp:
    """`function` with its calls of composite functions (MergeComposite's, TVM's `Composite`
    attribute) replaced by their bodies: a codegen takes ops, and fuses them itself."""
    from xtvm.passes.relay_annotate_target import COMPOSITE_ATTR
    from xtvm.passes.relay_inline import inline_call

    composites = {
        f.sym_name.data: f
        for f in module.ops
        if isinstance(f, func.FuncOp) and COMPOSITE_ATTR in f.attributes
    }
    for call in [c for c in function.walk() if isinstance(c, func.CallOp)]:
        callee = composites.get(call.callee.root_reference.data)
        if callee is not None:
            inline_call(call, callee)
    return function


def build_external(mod: ModuleLike, target: str) -> ExternalBuild | None:
    """Run the codegen of every function with a `compiler` attribute and compile their C.

    None when the module has no such function. The codegens get copies of the functions.
    """
    from xtvm.backends.external import UnknownCodegenError, get_codegen
    from xtvm.backends.external.library import compile_external
    from xtvm.backends.toolchain import CompileError

    module = module_of(mod)
    by_function: dict[str, ExternalFunction] = {}
    for function in module.ops:
        if not isinstance(function, func.FuncOp) or "compiler" not in function.attributes:
            continue
        name = function.sym_name.data
        compiler = function.attributes["compiler"]
        compiler_name = compiler.data if isinstance(compiler, StringAttr) else str(compiler)
        try:
            codegen = get_codegen(compiler_name)
        except UnknownCodegenError as exc:
            raise BuildError(
                f"relay.build: function @{name} (compiler = '{compiler_name}'): {exc}"
            ) from None
        built = codegen(inline_composites(function.clone(), module), target)
        arity = len(function.function_type.inputs.data) + len(function.function_type.outputs.data)
        if len(built.params) != arity:
            raise BuildError(
                f"relay.build: codegen '{compiler_name}' gave @{name} {len(built.params)} "
                f"params; its inputs and outputs are {arity}"
            )
        by_function[name] = built
    if not by_function:
        return None
    try:
        library = compile_external(list(by_function.values()))
    except CompileError as exc:
        raise BuildError(f"relay.build: compiling the external functions failed: {exc}") from None
    return ExternalBuild(by_function, library)
