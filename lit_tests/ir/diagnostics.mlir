// The rendered diagnostics: `file:line:col: error: message`, the source line, a caret under the
// culprit. Lines are those of this file, also in the pieces after `// -----`.
// RUN: not xtvm-opt %s --split-input-file 2>&1 | filecheck %s --strict-whitespace
// CHECK-NOT: Traceback
// Under --verify-diagnostics, errors nobody expected and expectations nobody met are errors.
// RUN: not xtvm-opt %s --split-input-file --verify-diagnostics 2>&1 \
// RUN:   | filecheck %s --check-prefix=VERIFY

// A parse error points at the offending token.
// CHECK-LABEL: diagnostics.mlir:[[# @LINE + 5]]:23: error: use of undeclared SSA value '%zz'
// VERIFY:      diagnostics.mlir:[[# @LINE + 4]]:23: error: unexpected error: use of undeclared SSA value '%zz'
// CHECK-NEXT:  {{^}}  %b = arith.addi %a, %zz : i32
// CHECK-NEXT:  {{^}}                      ^
func.func @undeclared(%a: i32) -> i32 {
  %b = arith.addi %a, %zz : i32
  func.return %b : i32
}

// -----

// A verifier error points at the op's name.
// CHECK-LABEL: diagnostics.mlir:[[# @LINE + 4]]:3: error: 'func.return' op expected arguments to have the same types as the function output types: expected [f32], got [i32]
// CHECK-NEXT:  {{^}}  func.return %a : i32
// CHECK-NEXT:  {{^}}  ^
func.func @wrong_return(%a: i32) -> f32 {
  func.return %a : i32
}

// -----

// Every op that fails verification is reported, each at its own line, in program order.
// CHECK-LABEL: diagnostics.mlir:[[# @LINE + 8]]:10: error: 'scf.for' op expected yield arg #0 to be i32, but got f32
// CHECK-NEXT:  {{^}}    %r = scf.for %i = %n to %n step %n iter_args(%x = %a) -> (i32) {
// CHECK-NEXT:  {{^}}         ^
// CHECK-NEXT:  diagnostics.mlir:[[# @LINE + 9]]:3: error: 'func.return' op expected arguments to have the same types as the function output types: expected [], got [i32]
// CHECK-NEXT:  {{^}}  func.return %a : i32
// CHECK-NEXT:  {{^}}  ^
func.func @two_errors(%c: i1, %n: index, %a: i32, %f: f32) {
  scf.if %c {
    %r = scf.for %i = %n to %n step %n iter_args(%x = %a) -> (i32) {
      scf.yield %f : f32
    }
  }
  func.return %a : i32
}

// -----

// An unknown op in the generic form is located at its quoted name.
// CHECK-LABEL: diagnostics.mlir:[[# @LINE + 3]]:1: error: unknown operation 'foo.bar'
// CHECK-NEXT:  {{^}}"foo.bar"() : () -> ()
// CHECK-NEXT:  {{^}}^
"foo.bar"() : () -> ()

// -----

// Running out of input inside a region is reported after the last character of the piece.
// CHECK-LABEL: diagnostics.mlir:[[# @LINE + 4]]:31: error: unexpected end of input
// CHECK-NEXT:  {{^}}  %b = arith.addi %a, %a : i32
// CHECK-NEXT:  {{^}}                              ^
func.func @unterminated(%a: i32) -> i32 {
  %b = arith.addi %a, %a : i32

// -----

// A valid piece prints its module (on stdout, after the diagnostics on stderr).
// CHECK-LABEL: func.func @valid_piece() {
// CHECK-NEXT:  {{^}}    func.return
// VERIFY:      diagnostics.mlir:[[# @LINE + 1]]:1: error: expected warning "never produced" was not produced
// expected-warning@+1 {{never produced}}
func.func @valid_piece() {
  func.return
}
