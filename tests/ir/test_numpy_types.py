"""Dtype names as TVM reads them: a bare `int`, `uint` or `float` is 32 bits wide."""

from __future__ import annotations

import pytest

from xtvm.ir.numpy_types import dtype_name


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("int", "int32"),
        ("uint", "uint32"),
        ("float", "float32"),
        ("int64", "int64"),
        ("float16", "float16"),
        ("bool", "bool"),
        (float, "float64"),  # a Python type is numpy's, not a TVM name
    ],
)
def test_dtype_names(name: object, canonical: str) -> None:
    assert dtype_name(name) == canonical


def test_unknown_names_are_value_errors() -> None:
    with pytest.raises(ValueError, match="unknown dtype"):
        dtype_name("int33x")
