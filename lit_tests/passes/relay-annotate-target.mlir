// RUN: xtvm-opt %s -p 'relay-annotate-target{targets=ccompiler}' --split-input-file | filecheck %s

// Ops claimed by ccompiler (add, subtract, multiply) are annotated with it; the others stay
// on the host as `default`; constants and params are inputs and get no annotation.
// CHECK-LABEL: func.func @mixed
// CHECK:         %[[C:.*]] = relay.const dense<1.000000e+00> : tensor<4xf32>
// CHECK-NOT:     compiler
// CHECK-NEXT:    %[[W:.*]] = relay.param["w"] : tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.add %{{.*}}, %[[C]] {compiler = "ccompiler"}
// CHECK-NEXT:    %[[E:.*]] = relay.exp %[[A]] {compiler = "default"}
// CHECK-NEXT:    %[[M:.*]] = relay.multiply %[[E]], %[[W]] {compiler = "ccompiler"}
// CHECK-NEXT:    %[[S:.*]] = relay.subtract %[[M]], %[[A]] {compiler = "ccompiler"}
// CHECK-NEXT:    func.return %[[S]]
func.func @mixed(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = relay.const dense<1.0> : tensor<4xf32>
  %w = relay.param["w"] : tensor<4xf32>
  %a = relay.add %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = relay.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  %m = relay.multiply %e, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = relay.subtract %m, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// -----

// A tuple takes the codegen shared by all its fields, else `default`; a tuple_get_item
// takes the codegen of the tuple it reads.
// CHECK-LABEL: func.func @tuples
// CHECK:         relay.tuple %{{.*}}, %{{.*}} {compiler = "ccompiler"}
// CHECK:         relay.tuple_get_item %{{.*}}[0] {compiler = "ccompiler"}
// CHECK:         relay.tuple %{{.*}}, %{{.*}} {compiler = "default"}
func.func @tuples(%x: tensor<4xf32>) -> (tensor<4xf32>, tuple<tensor<4xf32>, tensor<4xf32>>) {
  %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = relay.multiply %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = relay.tuple %a, %m : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  %g = relay.tuple_get_item %t[0] : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  %e = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %u = relay.tuple %a, %e : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  func.return %g, %u : tensor<4xf32>, tuple<tensor<4xf32>, tensor<4xf32>>
}

// -----

// A function already outlined for a codegen is left alone.
// CHECK-LABEL: func.func @outlined
// CHECK-SAME:    attributes {compiler = "ccompiler"}
// CHECK-NOT:     compiler =
// CHECK:         func.return
func.func @outlined(%x: tensor<4xf32>) -> tensor<4xf32> attributes {compiler = "ccompiler"} {
  %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// -----

// A call of a composite function is one unit, claimed by the codegen its pattern name starts
// with; the composite's own ops are left unannotated. Another codegen's composite stays home.
// CHECK-LABEL: func.func private @add_relu
// CHECK:         relay.add
// CHECK-NOT:     compiler
// CHECK:         func.return
// CHECK-LABEL: func.func @composite_calls
// CHECK:         func.call @add_relu(%{{.*}}, %{{.*}}) {compiler = "ccompiler"}
// CHECK:         func.call @dnnl_relu(%{{.*}}) {compiler = "default"}
func.func private @add_relu(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {Composite = "ccompiler.add_relu"} {
  %s = relay.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = relay.nn.relu %s : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
func.func private @dnnl_relu(%a: tensor<4xf32>) -> tensor<4xf32> attributes {Composite = "dnnl.relu"} {
  %r = relay.nn.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
func.func @composite_calls(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c = func.call @add_relu(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = func.call @dnnl_relu(%c) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}
