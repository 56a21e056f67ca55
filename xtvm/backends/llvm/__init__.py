"""The LLVM backend: tir kernels to LLVM IR (llvmlite), optimized, JIT-compiled or emitted as
object code, assembly or a shared library."""

from xtvm.backends.llvm.codegen import CodegenError, emit_module
from xtvm.backends.llvm.compile import CompiledLLVM, build_module, compile_module, optimize
from xtvm.backends.llvm.target import LLVMTarget, TargetError

__all__ = [
    "CodegenError",
    "CompiledLLVM",
    "LLVMTarget",
    "TargetError",
    "build_module",
    "compile_module",
    "emit_module",
    "optimize",
]
