"""TVM's `tvm.contrib.nvcc` capability queries: which features a CUDA compute capability
("major.minor", as `tvm.cuda(0).compute_version` gives it) has."""

from __future__ import annotations


def parse_compute_version(compute_version: str) -> tuple[int, int]:
    """(major, minor) of a compute capability such as "8.0"."""
    try:
        major, minor = str(compute_version).split(".")[:2]
        return int(major), int(minor)
    except ValueError:
        raise ValueError(f"compute version {compute_version!r} is not 'major.minor'") from None


def have_fp16(compute_version: str) -> bool:
    """Arithmetic on float16: from compute capability 5.3 (sm_60 and later in full)."""
    major, minor = parse_compute_version(compute_version)
    return (major, minor) == (5, 3) or major >= 6


def have_int8(compute_version: str) -> bool:
    """The dp4a int8 dot product: from compute capability 6.1."""
    return parse_compute_version(compute_version) >= (6, 1)


def have_tensorcore(compute_version: str | None = None, target: object = None) -> bool:
    """Tensor Cores: from compute capability 7.0."""
    if compute_version is None:
        return False
    return parse_compute_version(compute_version)[0] >= 7


def have_bf16(compute_version: str) -> bool:
    """bfloat16 arithmetic: from compute capability 8.0."""
    return parse_compute_version(compute_version)[0] >= 8
