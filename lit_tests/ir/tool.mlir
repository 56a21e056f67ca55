// The xtvm-opt command line: pass listing, pipeline errors, IR dumps, timing, output and input.

// --list-passes names every pass with its summary, sorted.
// RUN: xtvm-opt --list-passes | filecheck %s --check-prefix=LIST
// LIST-LABEL: Available passes:
// LIST:         canonicalize {{ +}}Fold ops and apply each op's canonicalization patterns
// LIST:         convert-scf-to-cf {{ +}}Lower structured control flow (scf) to branches (cf)
// LIST:         cse
// LIST:         licm {{ +}}Hoist loop-invariant code out of loops
// LIST:         scf-for-loop-unroll {{ +}}Fully unroll scf.for loops with constant trip counts

// An unknown pass suggests the closest known name, or lists them all.
// RUN: not xtvm-opt %s -p canonicalize,cse2 2>&1 | filecheck %s --check-prefix=UNKNOWN-PASS
// UNKNOWN-PASS: error: unknown pass 'cse2'; did you mean 'cse'?
// RUN: not xtvm-opt %s -p zzzzzz 2>&1 | filecheck %s --check-prefix=NO-CLOSE-PASS
// NO-CLOSE-PASS: error: unknown pass 'zzzzzz'; known: canonicalize, convert-relay-to-te, convert-scf-to-cf,

// Options a pass does not have, a malformed pipeline and an unknown flag.
// RUN: not xtvm-opt %s -p 'cse{depth=2}' 2>&1 | filecheck %s --check-prefix=UNKNOWN-OPTION
// UNKNOWN-OPTION: error: unknown option 'depth' for pass 'cse'; it takes no options
// RUN: not xtvm-opt %s -p 'cse{' 2>&1 | filecheck %s --check-prefix=MALFORMED
// MALFORMED: -p:1:5: error: expected '}' to close the options of 'cse', found the end
// RUN: not xtvm-opt %s --no-such-flag 2>&1 | filecheck %s --check-prefix=UNKNOWN-FLAG
// UNKNOWN-FLAG: xtvm-opt: error: unrecognized arguments: --no-such-flag

// A missing input file is an error, not a traceback.
// RUN: not xtvm-opt %t.does-not-exist.mlir 2>&1 | filecheck %s --check-prefix=NO-INPUT
// NO-INPUT: error: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// NO-INPUT-NOT: Traceback

// IR dumps go to stderr, before and after the named passes; the result goes to stdout.
// RUN: xtvm-opt %s -p canonicalize,cse --print-ir-after-all --print-ir-before=cse \
// RUN:   2> %t.dumps > %t.result
// RUN: filecheck %s --check-prefix=DUMPS < %t.dumps
// RUN: filecheck %s --check-prefix=RESULT < %t.result
// DUMPS:      // -----// IR Dump After canonicalize //----- //
// DUMPS-NEXT: builtin.module {
// DUMPS:        arith.muli
// DUMPS:      // -----// IR Dump Before cse //----- //
// DUMPS:      // -----// IR Dump After cse //----- //
// DUMPS-NOT:  // -----// IR Dump
// RESULT-NOT: IR Dump
// RESULT:     func.func @tool_input

// --print-ir-after=P dumps only after P.
// RUN: xtvm-opt %s -p canonicalize,cse --print-ir-after=cse 2>&1 >/dev/null \
// RUN:   | filecheck %s --check-prefix=AFTER-ONE
// AFTER-ONE-NOT: IR Dump After canonicalize
// AFTER-ONE:     // -----// IR Dump After cse //----- //

// --timing reports parsing, each pass and printing on stderr.
// RUN: xtvm-opt %s -p canonicalize,cse --timing 2>&1 >/dev/null | filecheck %s --check-prefix=TIMING
// TIMING:      ... Execution time report ...
// TIMING:      Total Execution Time: {{[0-9.]+}} seconds
// TIMING:      ----Wall Time----  ----Name----
// TIMING:      {{[0-9.]+}} ({{ *[0-9.]+}}%)  parse
// TIMING:      {{[0-9.]+}} ({{ *[0-9.]+}}%)  canonicalize
// TIMING:      {{[0-9.]+}} ({{ *[0-9.]+}}%)  cse
// TIMING:      {{[0-9.]+}} ({{ *[0-9.]+}}%)  print
// TIMING:      {{[0-9.]+}} (100.0%)  Total

// -o writes the result to a file, and nothing to stdout.
// RUN: xtvm-opt %s -p cse -o %t.out.mlir > %t.stdout
// RUN: filecheck %s --check-prefix=OUT < %t.out.mlir
// RUN: filecheck %s --check-prefix=EMPTY --allow-empty < %t.stdout
// OUT-LABEL: func.func @tool_input
// OUT:         %[[X:.*]] = arith.addi
// OUT-NOT:     arith.addi
// OUT:         arith.muli %[[X]], %[[X]] : i32
// EMPTY-NOT: {{.}}

// `-` reads stdin; diagnostics name it <stdin>.
// RUN: xtvm-opt - -p cse < %s | filecheck %s --check-prefix=OUT
// RUN: echo '"foo.bar"() : () -> ()' | not xtvm-opt - 2>&1 | filecheck %s --check-prefix=STDIN
// STDIN:      <stdin>:1:1: error: unknown operation 'foo.bar'
// STDIN-NEXT: "foo.bar"() : () -> ()

// The input of the runs above: a common subexpression and a foldable constant.
func.func @tool_input(%a: i32) -> i32 {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %k = arith.muli %c2, %c3 : i32
  %x = arith.addi %a, %k : i32
  %y = arith.addi %a, %k : i32
  %r = arith.muli %x, %y : i32
  func.return %r : i32
}
