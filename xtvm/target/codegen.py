"""TVM's `tvm.target.codegen` queries about the code generator: the version of the LLVM that
xtvm's LLVM backend (through llvmlite) emits code with."""

from __future__ import annotations

import llvmlite.binding as llb


def llvm_version_major(allow_none: bool = False) -> int:
    """The major version of the LLVM library in use."""
    return int(llb.llvm_version_info[0])
