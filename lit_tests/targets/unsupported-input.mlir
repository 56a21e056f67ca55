// What the backends cannot take is a located error at the op, exit 1, never a traceback.
// RUN: not xtvm-translate %s --target c 2>&1 | filecheck %s --check-prefix=C
// RUN: not xtvm-translate %s --target llvm 2>&1 | filecheck %s --check-prefix=LLVM

// C:        unsupported-input.mlir:[[# @LINE + 4]]:1: error: 'func.func' op has a region of 2 blocks; the c backend handles single-block regions only
// C-NOT:    Traceback
// LLVM:     unsupported-input.mlir:[[# @LINE + 2]]:1: error: 'func.func' op has a region of 2 blocks; the llvm backend handles single-block regions only
// LLVM-NOT: Traceback
func.func @branches(%A: memref<4xf32>) {
  cf.br ^bb1
^bb1:
  func.return
}
