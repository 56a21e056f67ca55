"""TVM's `tvm.tir.ir_builder`; the builder lives in `xtvm.te.ir_builder`, where TOPI's
data-dependent operators (non-maximum suppression, roi pooling) write their loops with it."""

from xtvm.te.ir_builder import BufferVar, IRBuilder, create

__all__ = ["BufferVar", "IRBuilder", "create"]
