// The generic form: read, printed with --print-generic, read back to the same text.
// RUN: xtvm-opt %s --split-input-file --allow-unregistered-dialect --print-generic | filecheck %s
// RUN: xtvm-opt %s --split-input-file --allow-unregistered-dialect --print-generic \
// RUN:   | xtvm-opt --split-input-file --allow-unregistered-dialect --print-generic | filecheck %s
// RUN: xtvm-opt %s --split-input-file --allow-unregistered-dialect --print-generic > %t.1.mlir
// RUN: xtvm-opt %t.1.mlir --split-input-file --allow-unregistered-dialect --print-generic > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// Locations: written ones are kept, the others are where the op's name stands in this file.
// RUN: xtvm-opt %s --split-input-file --allow-unregistered-dialect --print-generic \
// RUN:   --print-debuginfo | filecheck %s --check-prefix=LOC

// Properties, a region with an entry block argument, successors with operands.
// CHECK-LABEL: "func.func"() <{sym_name = "successors", function_type = (i1, i32) -> i32}> ({
// CHECK-NEXT:  ^[[ENTRY:.*]](%[[C:.*]]: i1, %[[X:.*]]: i32):
// CHECK-NEXT:    "cf.cond_br"(%[[C]], %[[X]]) [^[[BB1:.*]], ^[[BB2:.*]]] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> ()
// CHECK-NEXT:  ^[[BB1]](%[[V:.*]]: i32):
// CHECK-NEXT:    "func.return"(%[[V]]) : (i32) -> ()
// CHECK-NEXT:  ^[[BB2]]:
// CHECK-NEXT:    %[[K:.*]] = "arith.constant"() <{value = 7 : i32}> : () -> i32
// CHECK-NEXT:    "func.return"(%[[K]]) : (i32) -> ()
// CHECK-NEXT:  }) : () -> ()
"func.func"() <{sym_name = "successors", function_type = (i1, i32) -> i32}> ({
^bb0(%c: i1, %x: i32):
  "cf.cond_br"(%c, %x) [^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> ()
^bb1(%v: i32):
  "func.return"(%v) : (i32) -> ()
^bb2:
  %k = "arith.constant"() <{value = 7 : i32}> : () -> i32
  "func.return"(%k) : (i32) -> ()
}) : () -> ()

// -----

// Unregistered ops: two regions, result groups (named and numbered) and attributes after
// properties.
// CHECK-LABEL: "test.two_regions"() <{prop = 1 : i64}> ({
// CHECK-NEXT:    %[[A0:.*]], %[[A1:.*]] = "test.pair"() : () -> (i32, f32)
// CHECK-NEXT:    "test.use"(%[[A1]], %[[A0]]) : (f32, i32) -> ()
// CHECK-NEXT:    %[[N0:.*]], %[[N1:.*]] = "test.pair"() : () -> (i1, i8)
// CHECK-NEXT:    "test.use"(%[[N1]], %[[N0]]) : (i8, i1) -> ()
// CHECK-NEXT:  }, {
// CHECK-NEXT:  ^{{.*}}(%[[ARG:.*]]: index):
// CHECK-NEXT:    "test.use"(%[[ARG]]) : (index) -> ()
// CHECK-NEXT:  }) {attr = "after"} : () -> ()
"test.two_regions"() <{prop = 1}> ({
  %a:2 = "test.pair"() : () -> (i32, f32)
  "test.use"(%a#1, %a#0) : (f32, i32) -> ()
  %0:2 = "test.pair"() : () -> (i1, i8)
  "test.use"(%0#1, %0#0) : (i8, i1) -> ()
}, {
^bb0(%arg: index):
  "test.use"(%arg) : (index) -> ()
}) {attr = "after"} : () -> ()

// -----

// Integers of every width and signedness; an untyped integer is i64.
// CHECK-LABEL: "test.integers"()
// CHECK-SAME:    i1v = true, i1f = false, i8v = -8 : i8, i16v = 16 : i16, i32v = 32 : i32
// CHECK-SAME:    i64v = 64 : i64, si8v = -3 : si8, ui16v = 7 : ui16, idx = 5 : index
// CHECK-SAME:    ui64max = 18446744073709551615 : ui64
// CHECK-SAME:    i128min = -170141183460469231731687303715884105728 : i128
// CHECK-SAME:    hex = 255 : i32
"test.integers"() {i1v = true, i1f = false, i8v = -8 : i8, i16v = 16 : i16, i32v = 32 : i32, i64v = 64, si8v = -3 : si8, ui16v = 7 : ui16, idx = 5 : index, ui64max = 18446744073709551615 : ui64, i128min = -170141183460469231731687303715884105728 : i128, hex = 0xFF : i32} : () -> ()

// -----

// Floats: decimal, exponent and hexadecimal bit patterns (NaN and infinities stay hex).
// CHECK-LABEL: "test.floats"()
// CHECK-SAME:    f16v = 1.500000e+00 : f16, bf16v = 2.500000e+00 : bf16, f32v = -1.250000e-01 : f32
// CHECK-SAME:    f64v = 1.000000e+10 : f64, untyped = 2.000000e+00 : f64
// CHECK-SAME:    one = 1.000000e+00 : f16, nan = 0x7fc00000 : f32, inf = 0x7f800000 : f32
// CHECK-SAME:    ninf = 0xfff0000000000000 : f64
"test.floats"() {f16v = 1.5 : f16, bf16v = 2.5 : bf16, f32v = -0.125 : f32, f64v = 1.0e+10 : f64, untyped = 2.0, one = 0x3C00 : f16, nan = 0x7FC00000 : f32, inf = 0x7F800000 : f32, ninf = 0xFFF0000000000000 : f64} : () -> ()

// -----

// Strings with escapes, unit, arrays (nested, empty), dictionaries (nested, quoted keys).
// CHECK-LABEL: "test.containers"()
// CHECK-SAME:    s = "quote\22 backslash\\ newline\0A tab\09", u,
// CHECK-SAME:    arr = [1 : i64, "x", [2 : i32, []]], empty = []
// CHECK-SAME:    dict = {inner = {n = 1 : i8}, "quoted key" = 2 : i64}, edict = {}
"test.containers"() {s = "quote\" backslash\\ newline\n tab\t", u, arr = [1, "x", [2 : i32, []]], empty = [], dict = {inner = {n = 1 : i8}, "quoted key" = 2}, edict = {}} : () -> ()

// -----

// Dense elements: splat, nested, i1, f16, vector, empty; dense arrays.
// CHECK-LABEL: "test.dense"()
// CHECK-SAME:    splat = dense<1.000000e+00> : tensor<2x3xf32>
// CHECK-SAME:    nested = dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-SAME:    bools = dense<[true, false]> : tensor<2xi1>
// CHECK-SAME:    half = dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf16>
// CHECK-SAME:    vec = dense<0> : vector<4xi8>, none = dense<> : tensor<0xi32>
// CHECK-SAME:    ints = array<i32: 1, 2>, no_ints = array<i64>, floats = array<f32: 1.500000e+00>
"test.dense"() {splat = dense<1.0> : tensor<2x3xf32>, nested = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>, bools = dense<[true, false]> : tensor<2xi1>, half = dense<[1.5, -2.0]> : tensor<2xf16>, vec = dense<0> : vector<4xi8>, none = dense<> : tensor<0xi32>, ints = array<i32: 1, 2>, no_ints = array<i64>, floats = array<f32: 1.5>} : () -> ()

// -----

// Types as attributes, symbol references (nested), affine maps and sets.
// CHECK-LABEL: "test.refs"()
// CHECK-SAME:    ty = i32, fty = (i32, f32) -> i1, multi = () -> (index, none)
// CHECK-SAME:    ref = @a, nested = @a::@b::@c, quoted = @"with space"
// CHECK-SAME:    map = affine_map<(d0, d1)[s0] -> ((d0 + s0), (d1 * 2))>
// CHECK-SAME:    set = affine_set<(d0)[s0] : ((d0 + -1) >= 0, s0 == 0)>
"test.refs"() {ty = i32, fty = (i32, f32) -> i1, multi = () -> (index, none), ref = @a, nested = @a::@b::@c, quoted = @"with space", map = affine_map<(d0, d1)[s0] -> (d0 + s0, d1 * 2)>, set = affine_set<(d0)[s0] : (d0 - 1 >= 0, s0 == 0)>} : () -> ()

// -----

// Shaped types: layouts, memory spaces, encodings, dynamic and unranked shapes; and the rest.
// CHECK-LABEL: "test.types"()
// CHECK-SAME:    memref<4x4xf32, strided<[4, 1], offset: ?>>
// CHECK-SAME:    memref<8xi32, 1 : i64>
// CHECK-SAME:    memref<2xf32, strided<[1]>, "shared">
// CHECK-SAME:    memref<4xf32, affine_map<(d0) -> ((d0 + 1))>>
// CHECK-SAME:    tensor<4xf32, "enc">, tensor<?x3xf64>, tensor<f32>
// CHECK-SAME:    tensor<*xf32>, memref<*xf32>, memref<*xi8, 2 : i64>
// CHECK-SAME:    vector<2x4xf32>, tuple<i32, f32>, tuple<>, complex<f32>, none, index
"test.types"() : () -> (memref<4x4xf32, strided<[4, 1], offset: ?>>, memref<8xi32, 1>, memref<2xf32, strided<[1]>, "shared">, memref<4xf32, affine_map<(d0) -> (d0 + 1)>>, tensor<4xf32, "enc">, tensor<?x3xf64>, tensor<f32>, tensor<*xf32>, memref<*xf32>, memref<*xi8, 2>, vector<2x4xf32>, tuple<i32, f32>, tuple<>, complex<f32>, none, index)

// -----

// Trailing locations on ops and block arguments; --print-debuginfo prints them, and the
// position of an op written without one.
// CHECK-LABEL: "func.func"() <{sym_name = "locations"
// LOC-LABEL:   "func.func"() <{sym_name = "locations", function_type = (i32) -> i32}> ({
// LOC-NEXT:    ^{{.*}}(%[[A:.*]]: i32 loc("args.mlir":1:2)):
// LOC-NEXT:      %[[X:.*]] = "arith.addi"(%[[A]], %[[A]]) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32 loc("x.mlir":3:4)
// LOC-NEXT:      %[[Y:.*]] = "arith.muli"(%[[X]], %[[X]]) <{overflowFlags = #arith.overflow<nsw>}> : (i32, i32) -> i32 loc("named")
// LOC-NEXT:      %[[Z:.*]] = "arith.subi"(%[[Y]], %[[X]]) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32 loc(unknown)
// LOC-NEXT:      %[[W:.*]] = "arith.addi"(%[[Z]], %[[Z]]) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32 loc("{{.*}}generic.mlir":[[# @LINE + 9]]:8)
// LOC-NEXT:      "func.return"(%[[W]]) : (i32) -> () loc(fused["a.mlir":1:1, "b"])
// LOC-NEXT:    }) : () -> () loc("{{.*}}generic.mlir":[[# @LINE + 2]]:1)
// LOC-NEXT:  }) : () -> () loc(unknown)
"func.func"() <{sym_name = "locations", function_type = (i32) -> i32}> ({
^bb0(%a: i32 loc("args.mlir":1:2)):
  %x = "arith.addi"(%a, %a) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32 loc("x.mlir":3:4)
  %y = "arith.muli"(%x, %x) <{overflowFlags = #arith.overflow<nsw>}> : (i32, i32) -> i32 loc("named")
  %z = "arith.subi"(%y, %x) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32 loc(unknown)
  %w = "arith.addi"(%z, %z) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
  "func.return"(%w) : (i32) -> () loc(fused["a.mlir":1:1, "b"])
}) : () -> ()
