// The kernel ABI's checks: the argument binder at the entry and the heap buffers whose size
// is dynamic. Kernels return 0, or 1 after formatting a message that xtvm_last_error returns.
// RUN: xtvm-translate %s --target llvm | filecheck %s

// Every dynamic dimension is non-negative; every use of n agrees with its first (A's
// dimension 0); C's dimension 1 is m + 2 where the scalar m binds m.
// CHECK-LABEL: define i32 @"bind"(float* noalias %"A", float* noalias %"C", i64 %"m", i64 %"A_dim0", i64 %"C_dim0", i64 %"C_dim1")
// CHECK:         %[[NONNEG:.*]] = icmp sge i64 %"A_dim0", 0
// CHECK-NEXT:    br i1 %[[NONNEG]], label %"ok", label %"error"
// CHECK:       error:
// CHECK-NEXT:    %[[TEXT:.*]] = bitcast [512 x i8]* @"xtvm_last_error.text" to i8*
// CHECK-NEXT:    %[[FORMAT:.*]] = bitcast [55 x i8]* @"xtvm.error" to i8*
// CHECK-NEXT:    %{{.*}} = call i32 (i8*, i64, i8*, ...) @"snprintf"(i8* %[[TEXT]], i64 512, i8* %[[FORMAT]], i64 %"A_dim0")
// CHECK-NEXT:    ret i32 1
// CHECK:         %[[SAME:.*]] = icmp eq i64 %"C_dim0", %"A_dim0"
// CHECK:         %[[WANT:.*]] = add i64 %"m", 2
// CHECK-NEXT:    %[[AGREE:.*]] = icmp eq i64 %"C_dim1", %[[WANT]]
// The size in bytes of T is 4 * n, its product checked for overflow, and the block for NULL.
// CHECK:         %[[PRODUCT:.*]] = call {i64, i1} @"llvm.umul.with.overflow.i64"(i64 4, i64 %"A_dim0")
// CHECK-NEXT:    %[[OVERFLOW:.*]] = extractvalue {i64, i1} %[[PRODUCT]], 1
// CHECK:         %[[RAW:.*]] = call i8* @"aligned_alloc"(i64 64, i64
// CHECK-NEXT:    %[[GOT:.*]] = icmp ne i8* %[[RAW]], null
// CHECK:         ret i32 0
// CHECK-LABEL: define i8* @"xtvm_last_error"()
// CHECK:       @"xtvm.error" = private constant [55 x i8] c"bind: argument A: dimension 0 is %lld, a negative size\00"
// CHECK:       @"xtvm.error.3" = private constant [68 x i8] c"bind: argument C: dimension 0 is %lld, but n = %lld from argument A\00"
func.func @bind(%A: memref<?xf32>, %C: memref<?x?xf32>, %m: index) attributes {xtvm.arg_dims = [["n"], ["n", ["add", "m", 2 : i64]], "m"]} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %A, %c0 : memref<?xf32>
  %T = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %T : memref<?xf32>
  func.return
}
