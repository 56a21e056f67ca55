// RUN: xtvm-opt %s -p 'relay-annotate-target{targets=ccompiler},relay-merge-compiler-regions,relay-partition-graph' --split-input-file | filecheck %s

// The add/subtract/multiply chain becomes one ccompiler function called once; the host op
// stays in @main and the annotations are gone.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[M:.*]] = func.call @tvmgen_default_ccompiler_main_0(%[[X]], %[[Y]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[T:.*]] = relay.tanh %[[M]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[T]]
// CHECK-LABEL: func.func private @tvmgen_default_ccompiler_main_0
// CHECK-SAME:    (%[[FX:.*]]: tensor<4xf32>, %[[FY:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-SAME:    attributes {compiler = "ccompiler", global_symbol = "tvmgen_default_ccompiler_main_0", primitive, inline = 1 : i64}
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[FX]], %[[FY]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.subtract %[[A]], %[[FY]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[FM:.*]] = relay.multiply %[[S]], %[[A]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[FM]]
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = relay.subtract %a, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = relay.multiply %s, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = relay.tanh %m : (tensor<4xf32>) -> tensor<4xf32>
  func.return %t : tensor<4xf32>
}

// -----

// Diamond: two regions, numbered in order of appearance. The first has two outputs (%a read
// by the host's exp, %m read by the second region); the exp that sat between the first
// region's ops moves after its call. A constant read by a region is copied into it.
// CHECK-LABEL: func.func @diamond
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[A:.*]], %[[M:.*]] = func.call @tvmgen_default_ccompiler_diamond_0(%[[X]]) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[E:.*]] = relay.exp %[[A]]
// CHECK-NEXT:    %[[S:.*]] = func.call @tvmgen_default_ccompiler_diamond_1(%[[M]], %[[E]])
// CHECK-NEXT:    func.return %[[S]]
// CHECK-LABEL: func.func private @tvmgen_default_ccompiler_diamond_0
// CHECK-SAME:    -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[C:.*]] = relay.const dense<2.000000e+00>
// CHECK-NEXT:    %[[FA:.*]] = relay.add
// CHECK-NEXT:    %[[FM:.*]] = relay.multiply %[[FA]], %[[C]]
// CHECK-NEXT:    func.return %[[FA]], %[[FM]]
// CHECK-LABEL: func.func private @tvmgen_default_ccompiler_diamond_1
// CHECK-NEXT:    relay.subtract
// CHECK-NEXT:    func.return
func.func @diamond(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = relay.const dense<2.0> : tensor<4xf32>
  %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = relay.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  %m = relay.multiply %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = relay.subtract %m, %e : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// -----

// Nothing is offloaded: the module is unchanged but for the annotations.
// CHECK-LABEL: func.func @host_only
// CHECK-NEXT:    relay.exp %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT:     func.call
// CHECK-NOT:     tvmgen_default
func.func @host_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}

// -----

// A function already outlined is not partitioned again; new names do not reuse its number.
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    func.call @tvmgen_default_ccompiler_main_1(
// CHECK-LABEL: func.func private @tvmgen_default_ccompiler_main_0
// CHECK-NEXT:    relay.add
// CHECK-NOT:     compiler_region
// CHECK-LABEL: func.func private @tvmgen_default_ccompiler_main_1
// CHECK-NEXT:    relay.multiply
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %m = relay.multiply %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %m : tensor<4xf32>
}
func.func private @tvmgen_default_ccompiler_main_0(%x: tensor<4xf32>) -> tensor<4xf32> attributes {compiler = "ccompiler", global_symbol = "tvmgen_default_ccompiler_main_0"} {
  %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}
