// An out-of-tree dialect and pass, loaded from a plugin file without editing xtvm.
// The op's custom syntax comes from its assembly format: it reads back to the same text.
// RUN: xtvm-opt --load-plugin %S/Inputs/toy_plugin.py %s | filecheck %s --check-prefix=SYNTAX
// RUN: xtvm-opt --load-plugin %S/Inputs/toy_plugin.py %s \
// RUN:   | xtvm-opt --load-plugin %S/Inputs/toy_plugin.py | filecheck %s --check-prefix=SYNTAX
// RUN: xtvm-opt --load-plugin %S/Inputs/toy_plugin.py %s --print-generic \
// RUN:   | xtvm-opt --load-plugin %S/Inputs/toy_plugin.py | filecheck %s --check-prefix=SYNTAX
// RUN: xtvm-opt --load-plugin %S/Inputs/toy_plugin.py %s --print-generic \
// RUN:   | filecheck %s --check-prefix=GENERIC
// The plugin's pass rewrites the op.
// RUN: xtvm-opt --load-plugin %S/Inputs/toy_plugin.py %s -p toy-lower-double \
// RUN:   | filecheck %s --check-prefix=LOWER
// RUN: xtvm-opt --load-plugin %S/Inputs/toy_plugin.py --list-passes \
// RUN:   | filecheck %s --check-prefix=LIST
// Without the plugin the op is unknown; a missing file, a file without the hook and a plugin
// loaded twice are located errors, not tracebacks.
// RUN: not xtvm-opt %s 2>&1 | filecheck %s --check-prefix=NO-PLUGIN
// RUN: not xtvm-opt --load-plugin %S/Inputs/missing_plugin.py %s 2>&1 \
// RUN:   | filecheck %s --check-prefix=MISSING
// RUN: not xtvm-opt --load-plugin %S/Inputs/no_hook_plugin.py %s 2>&1 \
// RUN:   | filecheck %s --check-prefix=NO-HOOK
// RUN: not xtvm-opt --load-plugin %S/Inputs/toy_plugin.py --load-plugin %S/Inputs/toy_plugin.py \
// RUN:   %s 2>&1 | filecheck %s --check-prefix=TWICE
// A plugin with a syntax error, or one that raises while loading or in its hook, is an error at
// the plugin's line.
// RUN: echo "def broken(:" > %t.syntax.py
// RUN: not xtvm-opt --load-plugin %t.syntax.py %s 2>&1 | filecheck %s --check-prefix=SYNTAX-ERROR
// RUN: echo "VALUE = {}['missing']" > %t.raises.py
// RUN: not xtvm-opt --load-plugin %t.raises.py %s 2>&1 | filecheck %s --check-prefix=RAISES
// RUN: not xtvm-opt --load-plugin %S/Inputs/failing_hook_plugin.py %s 2>&1 \
// RUN:   | filecheck %s --check-prefix=HOOK

// SYNTAX-LABEL: func.func @double_twice
// SYNTAX-SAME:    (%[[X:.*]]: i32) -> i32 {
// SYNTAX-NEXT:    %[[D:.*]] = toy.double %[[X]] : i32
// SYNTAX-NEXT:    %[[E:.*]] = toy.double %[[D]] {toy.tag = "second"} : i32
// SYNTAX-NEXT:    func.return %[[E]] : i32

// GENERIC-LABEL: "func.func"
// GENERIC:         %[[D:.*]] = "toy.double"(%{{.*}}) : (i32) -> i32
// GENERIC-NEXT:    %{{.*}} = "toy.double"(%[[D]]) {toy.tag = "second"} : (i32) -> i32

// LOWER-LABEL: func.func @double_twice
// LOWER-SAME:    (%[[X:.*]]: i32)
// LOWER-NEXT:    %[[D:.*]] = arith.addi %[[X]], %[[X]] : i32
// LOWER-NEXT:    %[[E:.*]] = arith.addi %[[D]], %[[D]] : i32
// LOWER-NEXT:    func.return %[[E]] : i32
// LOWER-NOT:     toy.

// LIST: toy-lower-double {{ +}}Lower toy.double to arith.addi

// NO-PLUGIN:  plugin.mlir:[[# @LINE + 12]]:8: error: unknown operation 'toy.double'
// MISSING:    error: cannot open plugin '{{.*}}missing_plugin.py'
// NO-HOOK:    error: plugin '{{.*}}no_hook_plugin.py' defines no xtvm_plugin(registry) function
// TWICE:      error: dialect 'toy' is already loaded
// SYNTAX-ERROR:      syntax.py:1:12: error: plugin '{{.*}}syntax.py' has a syntax error: invalid syntax
// SYNTAX-ERROR-NEXT: def broken(:
// SYNTAX-ERROR-NEXT: {{^           \^$}}
// RAISES:     raises.py:1:9: error: plugin '{{.*}}raises.py' fails to load: KeyError: 'missing'
// HOOK:       failing_hook_plugin.py:8:5: error: plugin '{{.*}}' fails in xtvm_plugin(registry): AttributeError:
// HOOK-NOT:   Traceback

func.func @double_twice(%x: i32) -> i32 {
  %d = toy.double %x : i32
  %e = toy.double %d {toy.tag = "second"} : i32
  func.return %e : i32
}
