// tir to LLVM IR: the kernel ABI, counted loops, parallel loops on xtvm's thread pool,
// dynamic dimensions, stack and heap buffers, guards, libm calls and masked vector accesses.
// RUN: xtvm-translate %s --target llvm | filecheck %s
// RUN: xtvm-translate %s --target 'llvm -mcpu=haswell' --emit asm | filecheck %s --check-prefix=ASM

// Buffers are noalias element pointers; a serial loop is a counted loop over i64; values keep
// their IR names.
// CHECK-LABEL: define i32 @"scale"(float* noalias %"A", float* noalias %"B")
// CHECK:       i.header:
// CHECK-NEXT:    %"i" = phi  i64 [0, %"entry"], [%"i.next", %"i.body"]
// CHECK:         %"a" = load float, float*
// CHECK-NEXT:    %"b" = fmul contract float %"a", 0x4000000000000000
// CHECK:         store float %"b", float*
// ASM-LABEL: scale:
func.func @scale(%A: memref<64xf32>, %B: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  tir.for %i = %c0 to %c64 serial {
    %a = memref.load %A[%i] : memref<64xf32>
    %b = arith.mulf %a, %two : f32
    memref.store %b, %B[%i] : memref<64xf32>
  }
  func.return
}

// Float multiplies and adds carry `contract`, so a product feeding a sum becomes one FMA.
// CHECK-LABEL: define i32 @"axpy"
// CHECK:         %"p" = fmul contract float
// CHECK-NEXT:    %"s" = fadd contract float %"p"
// ASM-LABEL: axpy:
// ASM:         vfmadd{{[0-9]+}}{{p|s}}s
func.func @axpy(%X: memref<64xf32>, %Y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %a = arith.constant 3.0 : f32
  tir.for %i = %c0 to %c64 serial {
    %x = memref.load %X[%i] : memref<64xf32>
    %y = memref.load %Y[%i] : memref<64xf32>
    %p = arith.mulf %a, %x : f32
    %s = arith.addf %p, %y : f32
    memref.store %s, %Y[%i] : memref<64xf32>
  }
  func.return
}

// maximumf keeps NaN propagation (llvm.maximum) but leaves the order of -0 and +0 free
// (`nsz`), which spares x86 the sign tests around each vmaxss (a scalar max pool ran 2.6x faster).
// CHECK-LABEL: define i32 @"running_max"
// CHECK:         %"m" = call nsz float @"llvm.maximum.f32"(float %"acc", float %"x")
func.func @running_max(%X: memref<64xf32>, %Y: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %init = arith.constant 0xFF800000 : f32
  memref.store %init, %Y[%c0] : memref<1xf32>
  tir.for %i = %c0 to %c64 serial {
    %x = memref.load %X[%i] : memref<64xf32>
    %acc = memref.load %Y[%c0] : memref<1xf32>
    %m = arith.maximumf %acc, %x : f32
    memref.store %m, %Y[%c0] : memref<1xf32>
  }
  func.return
}

// A parallel loop is outlined into a body over a chunk [begin, end) of its iterations, and
// xtvm's thread pool runs the chunks over [0, n), the body given a struct of the values it uses.
// CHECK-LABEL: define i32 @"rows"(float* noalias %"A", i64 %"A_dim0")
// CHECK:         call void @"xtvm_parallel_for"(void (i8*, i64, i64)* @"rows_parallel_1", i8* %{{.*}}, i64 0, i64 %"A_dim0")
func.func @rows(%A: memref<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %A, %c0 : memref<?x8xf32>
  tir.for %i = %c0 to %n parallel {
    tir.for %j = %c0 to %c8 vectorized {
      %a = memref.load %A[%i, %j] : memref<?x8xf32>
      %t = math.tanh %a : f32
      memref.store %t, %A[%i, %j] : memref<?x8xf32>
    }
  }
  func.return
}

// Small intermediate buffers are entry-block allocas; a large one is a heap block its
// allocation site keeps for the next call: a call that finds the site's busy flag clear takes
// the cached block (allocating it the first time) and clears the flag at the return; a call
// running at the same time allocates a block of its own and frees it. A guard is a
// conditional branch. A block aligned_alloc could not give is an error: status 1, with a
// message.
// CHECK-LABEL: define i32 @"buffers"(float* noalias %"A")
// CHECK:         %"small" = alloca float, i64 16, align 64
// CHECK:         %[[TAKEN:.*]] = atomicrmw xchg i32* @"xtvm.buffer.0.busy", i32 1 acquire
// CHECK-NEXT:    %[[FREE:.*]] = icmp eq i32 %[[TAKEN]], 0
// CHECK:         %[[HELD:.*]] = load i8*, i8** @"xtvm.buffer.0"
// CHECK-NEXT:    icmp eq i8* %[[HELD]], null
// CHECK:         %[[FRESH:.*]] = call i8* @"aligned_alloc"(i64 64, i64
// CHECK:         %[[BLOCK:.*]] = phi  i8* [%{{.*}}, %"entry.if.endif"], [%[[FRESH]], %"entry.else"]
// CHECK-NEXT:    %[[GOT:.*]] = icmp ne i8* %[[BLOCK]], null
// CHECK-NEXT:    br i1 %[[GOT]], label %"ok", label %"error"
// CHECK:         %"big" = bitcast i8* %[[BLOCK]] to float*
// CHECK:         br i1 %"in", label %"if.then", label %"if.else"
// CHECK:         br i1 %[[FREE]], label
// CHECK:         store atomic i32 0, i32* @"xtvm.buffer.0.busy" release, align 4
// CHECK:         call void @"free"(i8* %[[BLOCK]])
// CHECK:         ret i32 0

// A vector of 14 floats in a kernel argument is one masked access of 16 lanes (LLVM would
// split it into 8 + 4 + 2); in a stack buffer (a register tile) it stays a plain access, which
// LLVM keeps in registers.
// CHECK-LABEL: define i32 @"odd_width"(float* noalias %"A", float* noalias %"B")
// CHECK:         call <16 x float> @"llvm.masked.load.v16f32.p0"(<16 x float>* %{{.*}}, i32 4, <16 x i1> <i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 0, i1 0>, <16 x float> <float undef
// CHECK:         store <14 x float> %{{.*}}, <14 x float>* %{{.*}}, align 4
// CHECK:         load <14 x float>, <14 x float>* %{{.*}}, align 4
// CHECK:         call void @"llvm.masked.store.v16f32.p0"(<16 x float> %{{.*}}, <16 x float>* %{{.*}}, i32 4, <16 x i1> <i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 0, i1 0>)

// A read along an outer dimension (tir-vectorize's transposing load) is one gather: the
// element pointers step by the dimension's stride (8 floats here).
// CHECK-LABEL: define i32 @"transposed"(float* noalias %"A", float* noalias %"B")
// CHECK:         %[[P:.*]] = inttoptr <16 x i64> %{{.*}} to <16 x float*>
// CHECK-NEXT:    call <16 x float> @"llvm.masked.gather.v16f32.v16p0"(<16 x float*> %[[P]], i32 4, <16 x i1> <i1 1

// vector.shuffle (tir-vector-transpose's joins and column picks) is one shufflevector.
// CHECK-LABEL: define i32 @"shuffled"(float* noalias %"A", float* noalias %"B")
// CHECK:         %[[L:.*]] = load <4 x float>
// CHECK:         %[[H:.*]] = load <4 x float>
// CHECK:         %[[J:.*]] = shufflevector <4 x float> %[[L]], <4 x float> %[[H]], <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
// CHECK-NEXT:    %{{.*}} = shufflevector <8 x float> %[[J]], <8 x float> %[[J]], <4 x i32> <i32 0, i32 4, i32 1, i32 5>

// exp, tanh and erf of float32 vectors are inline polynomials (vector_math), not a libm call
// per lane; a scalar tanh stays a libm call (above).
// CHECK-LABEL: define i32 @"vector_exp_tanh_erf"
// CHECK-NOT:     call float @"{{expf|tanhf|erff}}"
// CHECK:         call <8 x float> @"llvm.rint.v8f32"
// CHECK:         call <8 x float> @"llvm.fma.v8f32"
// CHECK:         call <8 x float> @"llvm.copysign.v8f32"
// CHECK:         call <8 x float> @"llvm.minnum.v8f32"
// CHECK:         call <8 x float> @"llvm.copysign.v8f32"
// CHECK-NOT:     call float @"{{expf|tanhf|erff}}"

// pow of float32 by a constant multiple of 1/4 is square roots and products, the last ones
// in double precision (power.py): x ** 0.75 = sqrt(x * sqrt(x)), sqrt(x) in float32 and the
// product exact in double, on a vector and on a scalar; any other pow of float32 vectors is
// exp2(y * log2|x|) in double precision; only a scalar pow by a variable stays a libm call.
// No vector pow is scalarized.
// CHECK-LABEL: define i32 @"vector_pow"
// CHECK-NOT:     @"llvm.pow.v8f32"
// CHECK:         %[[W:.*]] = fpext <8 x float> %"v" to <8 x double>
// CHECK-NEXT:    %[[R:.*]] = call <8 x float> @"llvm.sqrt.v8f32"(<8 x float> %"v")
// CHECK-NEXT:    %[[RW:.*]] = fpext <8 x float> %[[R]] to <8 x double>
// CHECK-NEXT:    %[[P:.*]] = fmul <8 x double> %[[W]], %[[RW]]
// CHECK-NEXT:    %[[Q:.*]] = call <8 x double> @"llvm.sqrt.v8f64"(<8 x double> %[[P]])
// CHECK-NEXT:    fptrunc <8 x double> %[[Q]] to <8 x float>
// CHECK-NOT:     @"llvm.pow.v8f32"
// CHECK:         fdiv <8 x double>
// CHECK:         call <8 x double> @"llvm.rint.v8f64"
// CHECK:         fptrunc <8 x double> %{{.*}} to <8 x float>
// CHECK:         call double @"llvm.sqrt.f64"
// CHECK-NOT:     @"llvm.pow.v8f32"
// CHECK:         %"u" = call float @"llvm.pow.f32"(float %"t", float %"s")

// Outlined parallel bodies follow the kernels (see @rows above).
// CHECK-LABEL: define internal void @"rows_parallel_1"(i8* %".1", i64 %".2", i64 %".3")
// CHECK-NOT:     atomicrmw
// CHECK:         icmp slt i64 %{{.*}}, %".3"
// CHECK:         call float @"tanhf"(float

// The site caches are freed by a static destructor (at exit, or when a shared library is
// unloaded; the JIT runs it when the module goes).
// CHECK-LABEL: define void @"xtvm_release_buffers"()
// CHECK:         call void @"free"(i8*
// CHECK-NEXT:    store i8* null, i8** @"xtvm.buffer.0"
// CHECK:       @"llvm.global_dtors" = appending global [1 x {i32, void ()*, i8*}] [{i32, void ()*, i8*} {i32 65535, void ()* @"xtvm_release_buffers", i8* null}]
func.func @buffers(%A: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %small = memref.alloc() : memref<16xf32, "local">
  %big = memref.alloc() : memref<100000xf32>
  tir.for %i = %c0 to %c16 serial {
    %a = memref.load %A[%i] : memref<16xf32>
    memref.store %a, %small[%i] : memref<16xf32, "local">
    %in = arith.cmpi ult, %i, %c3 : index
    scf.if %in {
      memref.store %a, %big[%i] : memref<100000xf32>
    }
  }
  memref.dealloc %small : memref<16xf32, "local">
  func.return
}

func.func @odd_width(%A: memref<14xf32>, %B: memref<14xf32>) {
  %c0 = arith.constant 0 : index
  %tile = memref.alloc() : memref<14xf32>
  %v = vector.load %A[%c0] : memref<14xf32>, vector<14xf32>
  vector.store %v, %tile[%c0] : memref<14xf32>, vector<14xf32>
  %t = vector.load %tile[%c0] : memref<14xf32>, vector<14xf32>
  vector.store %t, %B[%c0] : memref<14xf32>, vector<14xf32>
  memref.dealloc %tile : memref<14xf32>
  func.return
}

func.func @transposed(%A: memref<16x8xf32>, %B: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %pad = arith.constant 0.0 : f32
  %v = "vector.transfer_read"(%A, %c0, %c2, %pad) <{in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>, operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (memref<16x8xf32>, index, index, f32) -> vector<16xf32>
  vector.store %v, %B[%c0] : memref<16xf32>, vector<16xf32>
  func.return
}

func.func @shuffled(%A: memref<2x4xf32>, %B: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %low = vector.load %A[%c0, %c0] : memref<2x4xf32>, vector<4xf32>
  %high = vector.load %A[%c1, %c0] : memref<2x4xf32>, vector<4xf32>
  %both = "vector.shuffle"(%low, %high) <{mask = array<i64: 0, 1, 2, 3, 4, 5, 6, 7>}> : (vector<4xf32>, vector<4xf32>) -> vector<8xf32>
  %mixed = "vector.shuffle"(%both, %both) <{mask = array<i64: 0, 4, 1, 5>}> : (vector<8xf32>, vector<8xf32>) -> vector<4xf32>
  vector.store %mixed, %B[%c0] : memref<4xf32>, vector<4xf32>
  func.return
}

func.func @vector_exp_tanh_erf(%A: memref<8xf32>, %B: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %v = vector.load %A[%c0] : memref<8xf32>, vector<8xf32>
  %e = math.exp %v : vector<8xf32>
  %t = math.tanh %e : vector<8xf32>
  %r = math.erf %t : vector<8xf32>
  vector.store %r, %B[%c0] : memref<8xf32>, vector<8xf32>
  func.return
}

func.func @vector_pow(%A: memref<8xf32>, %B: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %q = arith.constant 7.500000e-01 : f32
  %v = vector.load %A[%c0] : memref<8xf32>, vector<8xf32>
  %e = vector.broadcast %q : f32 to vector<8xf32>
  %p = math.powf %v, %e : vector<8xf32>
  %g = math.powf %p, %v : vector<8xf32>
  vector.store %g, %B[%c0] : memref<8xf32>, vector<8xf32>
  %s = memref.load %A[%c0] : memref<8xf32>
  %t = math.powf %s, %q : f32
  %u = math.powf %t, %s : f32
  memref.store %u, %B[%c0] : memref<8xf32>
  func.return
}
