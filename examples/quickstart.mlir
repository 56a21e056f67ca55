// A small kernel: the sum of squares of a buffer, with redundant work for the pipeline
// (canonicalize, cse) to remove.
func.func @sum_of_squares(%buf: memref<16xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f32
  %sum = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
    %x = memref.load %buf[%i] : memref<16xf32>
    %sq = arith.mulf %x, %x : f32
    %sq2 = arith.mulf %x, %x : f32
    %unused = arith.addf %sq, %sq2 : f32
    %next = arith.addf %acc, %sq : f32
    scf.yield %next : f32
  }
  %one = arith.constant 1 : index
  func.return %sum : f32
}
