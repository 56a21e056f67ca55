// Custom syntax of the upstream ops: printed, read back and printed again gives the same text.
// RUN: xtvm-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip
// RUN: xtvm-opt %s --split-input-file > %t.1.mlir
// RUN: xtvm-opt %t.1.mlir --split-input-file > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// The generic form reads back into the same custom text.
// RUN: xtvm-opt %s --split-input-file --print-generic | xtvm-opt --split-input-file | filecheck %s

// Named modules keep their symbol and attributes; an empty module keeps its one block.
// CHECK-LABEL: builtin.module @outer attributes {test.flag, test.n = 3 : i32} {
// CHECK-NEXT:    builtin.module @inner {
// CHECK-NEXT:    }
// CHECK-NEXT:    builtin.module {
// CHECK-NEXT:      func.func private @nested_decl(i32) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:  }
module @outer attributes {test.flag, test.n = 3 : i32} {
  builtin.module @inner {
  }
  module {
    func.func private @nested_decl(i32)
  }
}

// -----

// Declarations (private: MLIR forbids public ones) print their function type.
// CHECK-LABEL: func.func private @declaration(i32, f32) -> i64
// CHECK-NEXT:  func.func private @no_results() -> ()
// CHECK-NEXT:  func.func private @two_results(index) -> (i1, i8)
func.func private @declaration(i32, f32) -> i64
func.func private @no_results()
func.func private @two_results(index) -> (i1, i8)

// -----

// A declaration with argument or result attributes keeps them: xDSL's custom printer would drop
// them, so it prints in the generic form.
// CHECK-LABEL: "func.func"() <{sym_name = "declaration_with_attrs", function_type = (i32, f32) -> i64, sym_visibility = "private", arg_attrs = [{test.noalias}, {}], res_attrs = [{test.res = 1 : i32}]}> ({
// CHECK-NEXT:  }) : () -> ()
func.func private @declaration_with_attrs(i32 {test.noalias}, f32) -> (i64 {test.res = 1 : i32})

// -----

// Argument and result attributes, multiple results and function attributes.
// CHECK-LABEL: func.func @arg_and_result_attrs
// CHECK-SAME:    (%[[A:.*]]: i32 {test.arg}, %[[M:.*]]: memref<4xf32> {test.align = 16 : i64})
// CHECK-SAME:    -> (i32 {test.res = "first"}, f32) attributes {test.fn = "x"} {
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[M]][%[[C0]]] : memref<4xf32>
// CHECK-NEXT:    func.return %[[A]], %[[V]] : i32, f32
func.func @arg_and_result_attrs(%a: i32 {test.arg}, %m: memref<4xf32> {test.align = 16 : i64})
    -> (i32 {test.res = "first"}, f32) attributes {test.fn = "x"} {
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0] : memref<4xf32>
  func.return %a, %v : i32, f32
}

// -----

// Integer and float arithmetic, comparisons, select, casts and fastmath flags.
// CHECK-LABEL: func.func @arith_ops
// CHECK:         %[[SUM:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %[[PROD:.*]] = arith.muli %[[SUM]], %{{.*}} overflow<nsw> : i32
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpi slt, %[[PROD]], %{{.*}} : i32
// CHECK-NEXT:    %[[SEL:.*]] = arith.select %[[LT]], %[[SUM]], %[[PROD]] : i32
// CHECK-NEXT:    %[[F:.*]] = arith.sitofp %[[SEL]] : i32 to f32
// CHECK-NEXT:    %[[G:.*]] = arith.mulf %[[F]], %{{.*}} fastmath<fast> : f32
// CHECK-NEXT:    %[[OGT:.*]] = arith.cmpf ogt, %[[G]], %{{.*}} : f32
// CHECK-NEXT:    %[[W:.*]] = arith.extsi %[[SEL]] : i32 to i64
// CHECK-NEXT:    %[[I:.*]] = arith.index_cast %[[W]] : i64 to index
// CHECK-NEXT:    %[[H:.*]] = arith.constant 1.500000e+00 : f16
// CHECK-NEXT:    %[[T:.*]] = arith.constant true
// CHECK-NEXT:    func.return %[[G]], %[[OGT]] : f32, i1
func.func @arith_ops(%a: i32, %b: i32, %x: f32) -> (f32, i1) {
  %sum = arith.addi %a, %b : i32
  %prod = arith.muli %sum, %b overflow<nsw> : i32
  %lt = arith.cmpi slt, %prod, %a : i32
  %sel = arith.select %lt, %sum, %prod : i32
  %f = arith.sitofp %sel : i32 to f32
  %g = arith.mulf %f, %x fastmath<fast> : f32
  %ogt = arith.cmpf ogt, %g, %x : f32
  %w = arith.extsi %sel : i32 to i64
  %i = arith.index_cast %w : i64 to index
  %h = arith.constant 1.5 : f16
  %t = arith.constant true
  func.return %g, %ogt : f32, i1
}

// -----

// Unary and binary math ops, with and without fastmath.
// CHECK-LABEL: func.func @math_ops
// CHECK-NEXT:    %[[E:.*]] = math.exp %{{.*}} : f32
// CHECK-NEXT:    %[[S:.*]] = math.sqrt %[[E]] fastmath<nnan> : f32
// CHECK-NEXT:    %[[P:.*]] = math.powf %[[S]], %[[E]] : f32
// CHECK-NEXT:    %[[A:.*]] = math.absi %{{.*}} : i32
// CHECK-NEXT:    %[[F:.*]] = math.fma %[[P]], %[[S]], %[[E]] : f32
// CHECK-NEXT:    func.return %[[F]]
func.func @math_ops(%x: f32, %n: i32) -> f32 {
  %e = math.exp %x : f32
  %s = math.sqrt %e fastmath<nnan> : f32
  %p = math.powf %s, %e : f32
  %a = math.absi %n : i32
  %f = math.fma %p, %s, %e : f32
  func.return %f : f32
}

// -----

// scf.for with iter_args over index, and a loop over i32 (its type follows the bounds).
// CHECK-LABEL: func.func @for_loops
// CHECK-SAME:    (%[[N:.*]]: index, %[[INIT:.*]]: i32)
// CHECK:         %[[R:.*]] = scf.for %[[IV:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (i32) {
// CHECK-NEXT:      %[[Y:.*]] = arith.muli %[[ACC]], %[[ACC]] : i32
// CHECK-NEXT:      scf.yield %[[Y]] : i32
// CHECK-NEXT:    }
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:      %{{.*}} = arith.addi %[[J]], %[[J]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : i32
func.func @for_loops(%n: index, %init: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (i32) {
    %y = arith.muli %acc, %acc : i32
    scf.yield %y : i32
  }
  %lb = arith.constant 0 : i32
  %ub = arith.constant 8 : i32
  %st = arith.constant 2 : i32
  scf.for %j = %lb to %ub step %st : i32 {
    %z = arith.addi %j, %j : i32
  }
  func.return %r : i32
}

// -----

// scf.for with two iter_args of different types, nested in another loop.
// CHECK-LABEL: func.func @nested_for_two_iter_args
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %{{.*}}, %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[F:.*]] = %{{.*}}, %[[I:.*]] = %{{.*}}) -> (f32, i64) {
// CHECK-NEXT:        scf.yield %[[F]], %[[I]] : f32, i64
// CHECK-NEXT:      }
// CHECK-NEXT:    }
func.func @nested_for_two_iter_args(%n: index, %f: f32, %i: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %o = %c0 to %n step %c1 {
    %a, %b = scf.for %k = %c0 to %n step %c1 iter_args(%x = %f, %y = %i) -> (f32, i64) {
      scf.yield %x, %y : f32, i64
    }
  }
  func.return
}

// -----

// scf.if without results (its yield is elided) and with results and an else region.
// CHECK-LABEL: func.func @if_ops
// CHECK-SAME:    (%[[C:.*]]: i1, %[[A:.*]]: f32, %[[B:.*]]: f32)
// CHECK-NEXT:    scf.if %[[C]] {
// CHECK-NEXT:      %{{.*}} = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:.*]] = scf.if %[[C]] -> (f32) {
// CHECK-NEXT:      %[[T:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:      scf.yield %[[T]] : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[E:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT:      scf.yield %[[E]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : f32
func.func @if_ops(%c: i1, %a: f32, %b: f32) -> f32 {
  scf.if %c {
    %t = arith.addf %a, %b : f32
  }
  %r = scf.if %c -> (f32) {
    %t = arith.addf %a, %b : f32
    scf.yield %t : f32
  } else {
    %e = arith.subf %a, %b : f32
    scf.yield %e : f32
  }
  func.return %r : f32
}

// -----

// A result group `%r:2` used as `%r#0` and `%r#1` prints as two names.
// CHECK-LABEL: func.func @if_two_results
// CHECK-NEXT:    %[[R0:.*]], %[[R1:.*]] = scf.if %{{.*}} -> (i32, i64) {
// CHECK:         func.return %[[R1]], %[[R0]] : i64, i32
func.func @if_two_results(%c: i1, %a: i32, %b: i64) -> (i64, i32) {
  %r:2 = scf.if %c -> (i32, i64) {
    scf.yield %a, %b : i32, i64
  } else {
    scf.yield %a, %b : i32, i64
  }
  func.return %r#1, %r#0 : i64, i32
}

// -----

// memref allocation (static, dynamic with alignment), loads, stores and deallocation.
// CHECK-LABEL: func.func @memref_ops
// CHECK-SAME:    (%[[N:.*]]: index)
// CHECK-NEXT:    %[[M:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK-NEXT:    %[[D:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?xf32>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[F:.*]] = arith.constant 1.500000e+00 : f32
// CHECK-NEXT:    memref.store %[[F]], %[[M]][%[[C0]], %[[C0]]] : memref<4x4xf32>
// CHECK-NEXT:    %[[L:.*]] = memref.load %[[D]][%[[N]]] : memref<?xf32>
// CHECK-NEXT:    memref.dealloc %[[M]] : memref<4x4xf32>
// CHECK-NEXT:    func.return
func.func @memref_ops(%n: index) {
  %m = memref.alloc() : memref<4x4xf32>
  %d = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.5 : f32
  memref.store %f, %m[%c0, %c0] : memref<4x4xf32>
  %l = memref.load %d[%n] : memref<?xf32>
  memref.dealloc %m : memref<4x4xf32>
  func.return
}

// -----

// Branches with block arguments; blocks are renumbered in order.
// CHECK-LABEL: func.func @branches
// CHECK-SAME:    (%[[C:.*]]: i1, %[[X:.*]]: i32) -> i32 {
// CHECK-NEXT:    cf.cond_br %[[C]], ^[[BB1:.*]](%[[X]] : i32), ^[[BB2:.*]]
// CHECK-NEXT:  ^[[BB1]](%[[V:.*]]: i32):
// CHECK-NEXT:    cf.br ^[[BB3:.*]](%[[V]] : i32)
// CHECK-NEXT:  ^[[BB2]]:
// CHECK-NEXT:    %[[K:.*]] = arith.constant 7 : i32
// CHECK-NEXT:    cf.br ^[[BB3]](%[[K]] : i32)
// CHECK-NEXT:  ^[[BB3]](%[[R:.*]]: i32):
// CHECK-NEXT:    cf.assert %[[C]], "must hold"
// CHECK-NEXT:    func.return %[[R]] : i32
func.func @branches(%c: i1, %x: i32) -> i32 {
  cf.cond_br %c, ^left(%x : i32), ^right
^left(%v: i32):
  cf.br ^join(%v : i32)
^right:
  %k = arith.constant 7 : i32
  cf.br ^join(%k : i32)
^join(%r: i32):
  cf.assert %c, "must hold"
  func.return %r : i32
}

// -----

// A branch back to a block defined later (forward reference to a block and its argument).
// CHECK-LABEL: func.func @loop_back_edge
// CHECK-NEXT:    cf.br ^[[HEAD:.*]](%{{.*}} : index)
// CHECK-NEXT:  ^[[HEAD]](%[[I:.*]]: index):
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[I]], %[[I]] : index
// CHECK-NEXT:    cf.br ^[[HEAD]](%[[NEXT]] : index)
func.func @loop_back_edge(%start: index) {
  cf.br ^head(%start : index)
^head(%i: index):
  %next = arith.addi %i, %i : index
  cf.br ^head(%next : index)
}

// -----

// Unrealized casts: one to one, one to many, and from nothing.
// CHECK-LABEL: func.func @unrealized_casts
// CHECK-SAME:    (%[[N:.*]]: index)
// CHECK-NEXT:    %[[U:.*]] = builtin.unrealized_conversion_cast %[[N]] : index to i64
// CHECK-NEXT:    %[[P:.*]], %[[Q:.*]] = builtin.unrealized_conversion_cast %[[U]] : i64 to i32, i32
// CHECK-NEXT:    %[[W:.*]] = builtin.unrealized_conversion_cast to i8
// CHECK-NEXT:    func.return %[[Q]], %[[W]] : i32, i8
func.func @unrealized_casts(%n: index) -> (i32, i8) {
  %u = builtin.unrealized_conversion_cast %n : index to i64
  %p:2 = builtin.unrealized_conversion_cast %u : i64 to i32, i32
  %w = builtin.unrealized_conversion_cast to i8
  func.return %p#1, %w : i32, i8
}

// -----

// Calls with zero, one and two results, to a declaration and to a definition.
// CHECK-LABEL: func.func private @callee(i32) -> (i32, f32)
// CHECK-LABEL: func.func @calls
// CHECK-SAME:    (%[[A:.*]]: i32)
// CHECK-NEXT:    %[[R0:.*]], %[[R1:.*]] = func.call @callee(%[[A]]) : (i32) -> (i32, f32)
// CHECK-NEXT:    %[[S:.*]] = func.call @calls(%[[R0]]) : (i32) -> i32
// CHECK-NEXT:    func.call @sink() : () -> ()
// CHECK-NEXT:    func.return %[[S]] : i32
func.func private @callee(i32) -> (i32, f32)
func.func private @sink()
func.func @calls(%a: i32) -> i32 {
  %r:2 = func.call @callee(%a) : (i32) -> (i32, f32)
  %s = func.call @calls(%r#0) : (i32) -> i32
  func.call @sink() : () -> ()
  func.return %s : i32
}

// -----

// affine ops with subscripts written as expressions of values; loop bodies without their
// affine.yield get it back (the custom form leaves it out again).
// CHECK-LABEL: func.func @affine_ops
// CHECK-SAME:    (%[[M:.*]]: memref<4x4xf32>, %[[N:.*]]: index)
// CHECK:         affine.for %[[I:.*]] = 0 to 4 {
// CHECK-NEXT:      affine.for %[[J:.*]] = max affine_map<(d0)[s0] -> (d0, s0)>(%[[I]])[%[[N]]] to min affine_map<(d0) -> ((d0 + 4), 8)>(%[[I]]) step 2 {
// CHECK-NEXT:        %[[V:.*]] = affine.load %[[M]][%[[I]] + 1, %[[J]] * 2] : memref<4x4xf32>
// CHECK-NEXT:        affine.store %[[V]], %[[M]][%[[I]] floordiv 2, %[[J]] * -1 + %[[N]] + -1] : memref<4x4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[A:.*]] = affine.apply affine_map<(d0)[s0] -> ((d0 + s0))> (%[[N]])[%[[N]]]
// CHECK-NEXT:    %{{.*}} = affine.min affine_map<(d0) -> (d0, 4)> (%[[A]])
// CHECK-NEXT:    %{{.*}} = affine.vector_load %[[M]][0, %[[N]] * 2] : memref<4x4xf32>, vector<2xf32>
// CHECK:         %{{.*}} = affine.for %{{.*}} = -4 to %[[N]] iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK:           affine.yield %{{.*}} : f32
// CHECK-NEXT:    }
func.func @affine_ops(%m: memref<4x4xf32>, %n: index) -> f32 {
  affine.for %i = 0 to 4 {
    affine.for %j = max affine_map<(d0)[s0] -> (d0, s0)>(%i)[%n] to min affine_map<(d0) -> (d0 + 4, 8)>(%i) step 2 {
      %v = affine.load %m[%i + 1, %j * 2] : memref<4x4xf32>
      affine.store %v, %m[%i floordiv 2, -%j + %n -1] : memref<4x4xf32>
    }
  }
  %a = affine.apply affine_map<(d0)[s0] -> (d0 + s0)> (%n)[%n]
  %b = affine.min affine_map<(d0) -> (d0, 4)> (%a)
  %w = affine.vector_load %m[0, %n * 2] : memref<4x4xf32>, vector<2xf32>
  affine.vector_store %w, %m[%b, 0] : memref<4x4xf32>, vector<2xf32>
  %z = arith.constant 0.0 : f32
  %s = affine.for %k = -4 to %n iter_args(%acc = %z) -> f32 {
    %x = affine.load %m[%k, %k] : memref<4x4xf32>
    %t = arith.addf %acc, %x : f32
    affine.yield %t : f32
  }
  func.return %s : f32
}

// -----

// MLIR's `symbol(%n)` in subscripts: the other values are the map's dimensions, as MLIR reads
// them. xDSL's custom form writes every value as a symbol, so such ops print generically.
// CHECK-LABEL: func.func @affine_symbol_subscripts
// CHECK-SAME:    (%[[M:.*]]: memref<16x16xf32>, %[[I:.*]]: index, %[[N:.*]]: index)
// CHECK-NEXT:    %[[V:.*]] = "affine.load"(%[[M]], %[[I]], %[[N]]) <{map = affine_map<(d0)[s0] -> ((d0 + s0), (d0 * 2))>}>
// CHECK-NEXT:    "affine.store"(%[[V]], %[[M]], %[[I]], %[[N]]) <{map = affine_map<(d0)[s0] -> (s0, (d0 floordiv 2))>}>
// CHECK-NEXT:    %{{.*}} = affine.load %[[M]][%[[I]], %[[N]]] : memref<16x16xf32>
func.func @affine_symbol_subscripts(%m: memref<16x16xf32>, %i: index, %n: index) -> f32 {
  %v = affine.load %m[%i + symbol(%n), %i * 2] : memref<16x16xf32>
  affine.store %v, %m[symbol(%n), %i floordiv 2] : memref<16x16xf32>
  %w = affine.load %m[%i, %n] : memref<16x16xf32>
  func.return %v : f32
}

// -----

// MLIR's affine.parallel is read: bound values are the maps' dimensions, `symbol(%n)` their
// symbols, max/min groups several bounds of one loop; xDSL has no custom form for it, so it
// prints generically, with the affine.yield the body leaves out.
// CHECK-LABEL: func.func @affine_parallel
// CHECK-SAME:    (%[[M:.*]]: memref<16x16xf32>, %[[N:.*]]: index, %[[A:.*]]: index)
// CHECK-NEXT:    "affine.parallel"(%[[A]], %[[N]]) <{reductions = [], lowerBoundsMap = affine_map<(d0) -> (0, d0, 2)>, lowerBoundsGroups = dense<[1, 2]> : vector<2xi32>, upperBoundsMap = affine_map<(d0) -> (d0, 8)>, upperBoundsGroups = dense<1> : vector<2xi32>, steps = [1 : i64, 2 : i64]}> ({
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index, %[[J:.*]]: index):
// CHECK-NEXT:      %[[V:.*]] = affine.load %[[M]][%[[I]], %[[J]]]
// CHECK-NEXT:      affine.store %[[V]], %[[M]][%[[J]], %[[I]]]
// CHECK-NEXT:      affine.yield
// CHECK-NEXT:    }) : (index, index) -> ()
// CHECK-NEXT:    "affine.parallel"(%[[N]]) <{reductions = [], lowerBoundsMap = affine_map<() -> (0)>, lowerBoundsGroups = dense<1> : vector<1xi32>, upperBoundsMap = affine_map<()[s0] -> ((s0 + 1))>, upperBoundsGroups = dense<1> : vector<1xi32>, steps = [1 : i64]}> ({
func.func @affine_parallel(%m: memref<16x16xf32>, %n: index, %a: index) {
  affine.parallel (%i, %j) = (0, max(%a, 2)) to (%n, 8) step (1, 2) {
    %v = affine.load %m[%i, %j] : memref<16x16xf32>
    affine.store %v, %m[%j, %i] : memref<16x16xf32>
  }
  affine.parallel (%k) = (0) to (symbol(%n) + 1) {
    %x = affine.load %m[%k, %k] : memref<16x16xf32>
  }
  func.return
}

// -----

// MLIR's affine.if is read; xDSL has no custom form for it, so it prints generically, with
// the affine.yield its branches leave out.
// CHECK-LABEL: func.func @affine_if
// CHECK:         "affine.if"(%{{.*}}) <{condition = affine_set<(d0) : ((d0 + -1) >= 0)>}> ({
// CHECK-NEXT:      affine.yield
// CHECK-NEXT:    }, {
// CHECK-NEXT:      affine.yield
// CHECK-NEXT:    }) : (index) -> ()
// CHECK:         %{{.*}} = "affine.if"(%{{.*}}) <{condition = affine_set<()[s0] : (s0 == 0)>}> ({
// CHECK-NEXT:      affine.yield %{{.*}} : f32
func.func @affine_if(%n: index, %x: f32) -> f32 {
  affine.if affine_set<(d0) : (d0 - 1 >= 0)>(%n) {
  } else {
  }
  %r = affine.if affine_set<()[s0] : (s0 == 0)>()[%n] -> f32 {
    affine.yield %x : f32
  } else {
    affine.yield %x : f32
  }
  func.return %r : f32
}

// -----

// Cases of an scf.index_switch without results may leave out their scf.yield, as in MLIR.
// CHECK-LABEL: func.func @switch_without_yields
// CHECK:         scf.index_switch %{{.*}}
// CHECK-NEXT:    case 1 {
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    default {
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
func.func @switch_without_yields(%i: index) {
  scf.index_switch %i
  case 1 {
  }
  default {
  }
  func.return
}
