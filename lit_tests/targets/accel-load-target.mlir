// --load-target registers an accelerator's memories as storage scopes: a schedule caching into
// the VTA scratchpads verifies (and lowers) with the target file loaded, and is a located
// error without it.
// RUN: xtvm-opt --load-target %S/../../examples/accelerators/vta/vta.mlir %s \
// RUN:   | filecheck %s
// RUN: xtvm-opt --load-target %S/../../examples/accelerators/vta/vta.mlir %s \
// RUN:   -p convert-te-to-tir | filecheck %s --check-prefix=TIR
// RUN: not xtvm-opt %s 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not xtvm-opt --load-target %S/missing.mlir %s 2>&1 | filecheck %s --check-prefix=MISSING

// CHECK-LABEL: func.func @scale
// CHECK:         %A.inp = te.cache_read %A {name = "A.inp", scope = "inp", readers = ["B"]} : tensor<16xi8>
// CHECK-NEXT:    te.compute_at "A.inp" {parent = "B", axis = "i.outer"}

// TIR-LABEL: func.func @scale
// TIR:         memref.alloc() : memref<8xi8, "inp">

// UNKNOWN: accel-load-target.mlir:[[# @LINE + 12]]:14: error: 'te.cache_read' op scope 'inp' is not a known storage scope
// MISSING: error: cannot open target file '{{.*}}missing.mlir'

func.func @scale(%A: tensor<16xi8>) -> tensor<16xi8> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<16xi8> -> i8
    %b = arith.addi %a, %a : i8
    te.yield %b : i8
  } {axis_names = ["i"]} : tensor<16xi8>
  te.schedule {
    te.split "B" {axis = "i", factor = 8 : i64, outer = "i.outer", inner = "i.inner"}
    %A.inp = te.cache_read %A {name = "A.inp", scope = "inp", readers = ["B"]} : tensor<16xi8>
    te.compute_at "A.inp" {parent = "B", axis = "i.outer"}
  }
  func.return %B : tensor<16xi8>
}
