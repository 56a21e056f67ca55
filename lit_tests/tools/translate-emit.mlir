// xtvm-translate: --emit is for llvm targets, c and cuda write source and refuse it; input that
// gives no code (no functions, or no GPU kernel for cuda) is an error, never includes alone.

// RUN: not xtvm-translate %s --target c --emit obj 2>&1 | filecheck %s --check-prefix=EMIT-C
// EMIT-C: error: --emit obj applies to llvm targets only; --target c writes C source
// RUN: not xtvm-translate %s --target cuda --emit asm 2>&1 | filecheck %s --check-prefix=EMIT-CUDA
// EMIT-CUDA: error: --emit asm applies to llvm targets only; --target cuda writes CUDA C source
// RUN: not xtvm-translate %s --target c --optimized 2>&1 | filecheck %s --check-prefix=OPTIMIZED
// OPTIMIZED: error: --optimized applies to llvm targets only
// RUN: xtvm-translate %s --target c | filecheck %s --check-prefix=C
// C: int32_t copy(

// A serial loop has no thread binding: no CUDA kernel comes of it.
// RUN: not xtvm-translate %s --target cuda 2>&1 | filecheck %s --check-prefix=NO-KERNEL
// NO-KERNEL:      translate-emit.mlir:[[# @LINE + 3]]:1: error: no GPU kernel to translate: bind loops to threads
// NO-KERNEL-NEXT: func.func @copy(
// NO-KERNEL-NOT:  #include
func.func @copy(%A: memref<4xf32>, %B: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tir.for %i = %c0 to %c4 serial {
    %a = memref.load %A[%i] : memref<4xf32>
    memref.store %a, %B[%i] : memref<4xf32>
  }
  func.return
}

// A module without functions is nothing to translate, for every target.
// RUN: echo 'builtin.module {}' | not xtvm-translate - --target c 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: echo 'builtin.module {}' | not xtvm-translate - --target cuda 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: echo 'builtin.module {}' | not xtvm-translate - --target llvm 2>&1 | filecheck %s --check-prefix=EMPTY
// EMPTY:     <stdin>:1:1: error: nothing to translate: the input has no functions
// EMPTY-NOT: #include

// No abbreviated flags.
// RUN: not xtvm-translate %s --emi asm 2>&1 | filecheck %s --check-prefix=ABBREV
// ABBREV: error: unrecognized arguments: --emi asm
