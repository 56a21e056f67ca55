"""The CUDA backend: the C walker with CUDA's tables; GPU kernels as CUDA C source."""

from xtvm.backends.cuda.build import Launch, NoGPUError, build_cuda, launches
from xtvm.backends.cuda.codegen import CUDARenderer, render_cuda

__all__ = ["CUDARenderer", "Launch", "NoGPUError", "build_cuda", "launches", "render_cuda"]
