// What the LLVM backend refuses is a located error, exit 1.
// RUN: not xtvm-translate %s 2>&1 | filecheck %s
// RUN: not xtvm-translate %s --target 'llvm -mfoo=1' 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: not xtvm-translate %s --target 'llvm -mcpu=skylake-avx51' 2>&1 | filecheck %s --check-prefix=CPU
// RUN: not xtvm-translate %s --target 'llvm -mattr=+avx2,+fmaa' 2>&1 | filecheck %s --check-prefix=ATTR

// CHECK: llvm-invalid.mlir:[[# @LINE + 5]]:3: error: the LLVM backend cannot translate 'memref.copy'
// TARGET: error: unknown target option '-mfoo'
// CPU: error: unknown CPU 'skylake-avx51' for target '{{.*}}'; did you mean 'skylake-avx512'?
// ATTR: error: unknown CPU feature '+fmaa' for target '{{.*}}'; did you mean '+fma'?
func.func @copy(%a: memref<4xf32>, %b: memref<4xf32>) {
  "memref.copy"(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
  func.return
}
