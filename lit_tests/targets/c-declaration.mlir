// A function declaration (`func.func private`) becomes a C prototype, and its caller calls it.
// RUN: xtvm-translate %s --target c | filecheck %s

// CHECK:       int32_t helper(float *restrict arg0);
// CHECK-LABEL: int32_t caller(float *restrict a) {
// CHECK-NEXT:    if (helper(a) != 0) {
func.func private @helper(memref<4xf32>)

func.func @caller(%a: memref<4xf32>) {
  func.call @helper(%a) : (memref<4xf32>) -> ()
  func.return
}
