// What the LLVM backend refuses is a located error, exit 1.
// RUN: not xtvm-translate %s 2>&1 | filecheck %s
// RUN: not xtvm-translate %s --target 'llvm -mfoo=1' 2>&1 | filecheck %s --check-prefix=TARGET

// CHECK: llvm-invalid.mlir:[[# @LINE + 3]]:3: error: the LLVM backend cannot translate 'memref.copy'
// TARGET: error: unknown target option '-mfoo'
func.func @copy(%a: memref<4xf32>, %b: memref<4xf32>) {
  "memref.copy"(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
  func.return
}
