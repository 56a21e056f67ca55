// An integer literal of 5000 digits (beyond Python's 4300-digit conversion limit, and any
// type's width) is a located error, exit 1, in every tool.
// RUN: %python -c "print('func.func @f() -> i32 {\n  %%c = arith.constant ' + '9' * 5000 + ' : i32\n  func.return %%c : i32\n}')" > %t.mlir
// RUN: not xtvm-opt %t.mlir 2>&1 | filecheck %s
// RUN: not xtvm-translate %t.mlir --target c 2>&1 | filecheck %s

// CHECK: long-integer.mlir.tmp.mlir:2:23: error: integer literal has more than 4300 digits
// CHECK-NOT: internal error
