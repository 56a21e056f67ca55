// xtvm-opt's pipelines: MLIR's --pass-pipeline with func.func(...) nests, one flag per pass,
// both mixed with -p in command-line order, and located errors for what is wrong in them.

// --pass-pipeline is anchored on the module; func.func(...) runs its passes on each function,
// alone in a module of its own (the dumps show which function).
// RUN: xtvm-opt %s --pass-pipeline='builtin.module(func.func(cse),canonicalize)' \
// RUN:   --print-ir-after=cse 2> %t.dumps | filecheck %s --check-prefix=NESTED
// RUN: filecheck %s --check-prefix=NESTED-DUMPS < %t.dumps
// NESTED-LABEL: func.func @f(%a: i32) -> i32 {
// NESTED-NEXT:    %s = arith.constant 5 : i32
// NESTED-NEXT:    %x = arith.addi %a, %s : i32
// NESTED-NEXT:    %m = arith.muli %x, %x : i32
// NESTED-LABEL: func.func @g(%a: i32) -> i32 {
// NESTED-NEXT:    %x = arith.addi %a, %a : i32
// NESTED-NEXT:    %m = arith.muli %x, %x : i32
// NESTED-DUMPS:      // -----// IR Dump After cse ('func.func' operation: @f) //----- //
// NESTED-DUMPS-NEXT: builtin.module {
// NESTED-DUMPS-NEXT:   func.func @f
// NESTED-DUMPS-NOT:    func.func @g
// NESTED-DUMPS:      // -----// IR Dump After cse ('func.func' operation: @g) //----- //
// NESTED-DUMPS-NEXT: builtin.module {
// NESTED-DUMPS-NEXT:   func.func @g

// The same through -p (the anchor is optional there) and through the per-pass flags.
// RUN: xtvm-opt %s -p 'func.func(cse),canonicalize' | filecheck %s --check-prefix=NESTED
// RUN: xtvm-opt %s --cse --canonicalize | filecheck %s --check-prefix=NESTED
// RUN: xtvm-opt --cse %s --canonicalize | filecheck %s --check-prefix=NESTED

// Pass flags, -p and --pass-pipeline run in the order given; options by --NAME='key=value'.
// RUN: xtvm-opt %s --canonicalize -p dce --pass-pipeline='builtin.module(cse)' \
// RUN:   --relay-fold-constant='max-elements=64 max-growth=2' --print-ir-after-all 2>&1 >/dev/null \
// RUN:   | filecheck %s --check-prefix=ORDER
// ORDER:     IR Dump After canonicalize //
// ORDER:     IR Dump After dce //
// ORDER:     IR Dump After cse //
// ORDER:     IR Dump After relay-fold-constant //
// ORDER-NOT: IR Dump

// Unquoted paths in options (relay-print-dot's output).
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: xtvm-opt %s -p 'relay-print-dot{output=%t.dir/g.dot}' > /dev/null
// RUN: test -f %t.dir/g.dot

// Errors: located in the pipeline text, with the closest known names; exit 1.
// RUN: not xtvm-opt %s --pass-pipeline='func.func(cse)' 2>&1 | filecheck %s --check-prefix=ANCHOR
// ANCHOR:      --pass-pipeline:1:1: error: the pipeline must be anchored on the module: 'builtin.module(...)'
// ANCHOR-NEXT: func.func(cse)
// ANCHOR-NEXT: ^
// RUN: not xtvm-opt %s --pass-pipeline='builtin.module(func.func(cse),canonicalize' 2>&1 \
// RUN:   | filecheck %s --check-prefix=UNCLOSED
// UNCLOSED: --pass-pipeline:1:43: error: expected ')' to close 'builtin.module(', found the end
// RUN: not xtvm-opt %s --pass-pipeline='builtin.module(func.func(cse,canonicalise))' 2>&1 \
// RUN:   | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN:      --pass-pipeline:1:30: error: unknown pass 'canonicalise'; did you mean 'canonicalize' or {{.*}}'relay-canonicalize-ops'?
// UNKNOWN-NEXT: builtin.module(func.func(cse,canonicalise))
// UNKNOWN-NEXT:                              ^
// RUN: not xtvm-opt %s -p 'cse,,dce' 2>&1 | filecheck %s --check-prefix=EMPTY-ELEMENT
// EMPTY-ELEMENT: -p:1:5: error: expected a pass or op name, found ','
// RUN: not xtvm-opt %s -p 'cse dce' 2>&1 | filecheck %s --check-prefix=TRAILING
// TRAILING: -p:1:5: error: expected ',' or the end of the pipeline, found 'd'
// RUN: not xtvm-opt %s --relay-fold-constant='max-elements=64 size=2' 2>&1 \
// RUN:   | filecheck %s --check-prefix=FLAG-OPTION
// FLAG-OPTION: --relay-fold-constant:1:37: error: unknown option 'size' for pass 'relay-fold-constant'; known: fold-qnn, keep-weight-transposes, max-elements, max-growth
// RUN: not xtvm-opt %s --relay-fold-constant='max-elements=many' 2>&1 \
// RUN:   | filecheck %s --check-prefix=BAD-VALUE
// BAD-VALUE: --relay-fold-constant:1:1: error: invalid options for pass 'relay-fold-constant':
// RUN: not xtvm-opt %s -p 'relay-print-dot{output="%t.dot}' 2>&1 | filecheck %s --check-prefix=STRING
// STRING: error: unterminated string

// --print-ir-after/--print-ir-before name known passes.
// RUN: not xtvm-opt %s -p cse --print-ir-after=cs 2>&1 | filecheck %s --check-prefix=DUMP-NAME
// DUMP-NAME: error: --print-ir-after: unknown pass 'cs'; did you mean 'cse'?
// RUN: not xtvm-opt %s -p cse --print-ir-before=zz 2>&1 | filecheck %s --check-prefix=DUMP-NAME-BEFORE
// DUMP-NAME-BEFORE: error: --print-ir-before: unknown pass 'zz'

func.func @f(%a: i32) -> i32 {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %s = arith.addi %c2, %c3 : i32
  %x = arith.addi %a, %s : i32
  %y = arith.addi %a, %s : i32
  %m = arith.muli %x, %y : i32
  func.return %m : i32
}
func.func @g(%a: i32) -> i32 {
  %x = arith.addi %a, %a : i32
  %y = arith.addi %a, %a : i32
  %m = arith.muli %x, %y : i32
  func.return %m : i32
}
