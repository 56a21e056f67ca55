// Host relay passes transform function bodies; a declaration (no body) stays as it is.
// RUN: xtvm-opt %s -p relay-cse | filecheck %s
// RUN: xtvm-opt %s -p relay-dce | filecheck %s
// RUN: xtvm-opt %s -p relay-fold-constant | filecheck %s
// RUN: xtvm-opt %s -p relay-simplify-inference | filecheck %s
// RUN: xtvm-opt %s -p relay-alter-op-layout | filecheck %s
// RUN: xtvm-opt %s -p relay-alter-dense-layout | filecheck %s
// RUN: xtvm-opt %s -p relay-convert-layout | filecheck %s

// CHECK:       func.func private @helper(memref<4xf32>)
// CHECK-LABEL: func.func @caller
// CHECK-NEXT:    func.call @helper(%{{.*}}) : (memref<4xf32>) -> ()
// CHECK-NEXT:    func.return
func.func private @helper(memref<4xf32>)

func.func @caller(%a: memref<4xf32>) {
  func.call @helper(%a) : (memref<4xf32>) -> ()
  func.return
}
