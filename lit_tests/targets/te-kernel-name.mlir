// A te kernel lowered on the way to a backend keeps its source location: an error about the
// kernel (here its name, a C keyword) points at its `func.func`.
// RUN: not xtvm-translate %s --target c 2>&1 | filecheck %s --check-prefix=C
// RUN: not xtvm-translate %s --target llvm 2>&1 | filecheck %s --check-prefix=LLVM

// C:    te-kernel-name.mlir:[[# @LINE + 2]]:1: error: the C backend's function name "double" is a C keyword
// LLVM: te-kernel-name.mlir:[[# @LINE + 1]]:1: error: the LLVM backend's function name "double" is a C keyword
func.func private @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = te.compute "y" {
  ^bb0(%i: index):
    %a = te.read %x[%i] : tensor<4xf32> -> f32
    %b = arith.addf %a, %a : f32
    te.yield %b : f32
  } {axis_names = ["i"]} : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
