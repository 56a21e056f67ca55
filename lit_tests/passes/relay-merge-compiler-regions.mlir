// RUN: xtvm-opt %s -p 'relay-annotate-target{targets=ccompiler},relay-merge-compiler-regions' --split-input-file | filecheck %s

// A chain of ccompiler ops becomes one region; the host op after it gets none.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    relay.add {{.*}} {compiler = "ccompiler", compiler_region = 0 : i64}
// CHECK-NEXT:    relay.subtract {{.*}} {compiler = "ccompiler", compiler_region = 0 : i64}
// CHECK-NEXT:    relay.multiply {{.*}} {compiler = "ccompiler", compiler_region = 0 : i64}
// CHECK-NEXT:    relay.tanh {{.*}} {compiler = "default"}
func.func @chain(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = relay.subtract %a, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = relay.multiply %s, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = relay.tanh %m : (tensor<4xf32>) -> tensor<4xf32>
  func.return %t : tensor<4xf32>
}

// -----

// Diamond: %s reads %m (ccompiler) and %e (host), and %e reads %a. Merging %s into the region
// of %a and %m would make a cycle region -> exp -> region, so %s gets a region of its own.
// CHECK-LABEL: func.func @diamond
// CHECK-NEXT:    relay.add {{.*}} compiler_region = 0 : i64
// CHECK-NEXT:    relay.exp {{.*}} {compiler = "default"}
// CHECK-NEXT:    relay.multiply {{.*}} compiler_region = 0 : i64
// CHECK-NEXT:    relay.subtract {{.*}} compiler_region = 1 : i64
func.func @diamond(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = relay.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  %m = relay.multiply %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = relay.subtract %m, %e : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// -----

// Two ccompiler ops joined by a direct edge and by no other path merge, even when a host op
// reading the first sits between them in program order.
// CHECK-LABEL: func.func @fan_out
// CHECK-NEXT:    relay.add {{.*}} compiler_region = 0 : i64
// CHECK-NEXT:    relay.exp {{.*}} {compiler = "default"}
// CHECK-NEXT:    relay.multiply {{.*}} compiler_region = 0 : i64
func.func @fan_out(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = relay.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  %m = relay.multiply %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %e, %m : tensor<4xf32>, tensor<4xf32>
}

// -----

// Ops separated by a host op form two regions; each function counts its own from 0.
// CHECK-LABEL: func.func @first
// CHECK-NEXT:    relay.add {{.*}} compiler_region = 0 : i64
// CHECK-NEXT:    relay.nn.relu {{.*}} {compiler = "default"}
// CHECK-NEXT:    relay.multiply {{.*}} compiler_region = 1 : i64
// CHECK-LABEL: func.func @second
// CHECK-NEXT:    relay.subtract {{.*}} compiler_region = 0 : i64
func.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = relay.nn.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  %m = relay.multiply %r, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %m : tensor<4xf32>
}
func.func @second(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = relay.subtract %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
