// RUN: xtvm-opt %s -p tir-lower-intrinsics --split-input-file | filecheck %s
// RUN: xtvm-opt %s -p 'tir-lower-intrinsics{keep=sqrt}' --split-input-file | filecheck %s --check-prefix=KEEP

// f32 ops without an instruction call the float libm functions; sqrt, fabs, floor, ceil and
// fma stay math ops by default.
// CHECK-LABEL: func.func @f32_calls
// CHECK-SAME:    (%[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK-NEXT:    %[[E:.*]] = tir.call_extern "expf"(%[[X]]) : (f32) -> f32
// CHECK-NEXT:    %[[T:.*]] = tir.call_extern "tanhf"(%[[E]]) : (f32) -> f32
// CHECK-NEXT:    %[[P:.*]] = tir.call_extern "powf"(%[[T]], %[[Y]]) : (f32, f32) -> f32
// CHECK-NEXT:    %[[R:.*]] = tir.call_extern "erff"(%[[P]]) : (f32) -> f32
// CHECK-NEXT:    %[[S:.*]] = math.sqrt %[[R]] : f32
// CHECK-NEXT:    %[[A:.*]] = math.absf %[[S]] : f32
// CHECK-NEXT:    %[[F:.*]] = math.floor %[[A]] : f32
// CHECK-NEXT:    %[[C:.*]] = math.ceil %[[F]] : f32
// CHECK-NEXT:    %[[M:.*]] = math.fma %[[C]], %[[X]], %[[Y]] : f32
// CHECK-NEXT:    func.return %[[M]] : f32
// The keep option lowers what it does not name: only sqrt stays.
// KEEP-LABEL: func.func @f32_calls
// KEEP:         math.sqrt
// KEEP-NEXT:    tir.call_extern "fabsf"
// KEEP-NEXT:    tir.call_extern "floorf"
// KEEP-NEXT:    tir.call_extern "ceilf"
// KEEP-NEXT:    tir.call_extern "fmaf"
func.func @f32_calls(%x: f32, %y: f32) -> f32 {
  %e = math.exp %x : f32
  %t = math.tanh %e : f32
  %p = math.powf %t, %y : f32
  %r = math.erf %p : f32
  %s = math.sqrt %r : f32
  %a = math.absf %s : f32
  %f = math.floor %a : f32
  %c = math.ceil %f : f32
  %m = math.fma %c, %x, %y : f32
  func.return %m : f32
}

// -----

// f64 ops call the double functions, without suffix.
// CHECK-LABEL: func.func @f64_calls
// CHECK-NEXT:    tir.call_extern "log"(%{{.*}}) : (f64) -> f64
// CHECK-NEXT:    tir.call_extern "sin"(%{{.*}}) : (f64) -> f64
// CHECK-NEXT:    tir.call_extern "cos"(%{{.*}}) : (f64) -> f64
func.func @f64_calls(%x: f64) -> f64 {
  %l = math.log %x : f64
  %s = math.sin %l : f64
  %c = math.cos %s : f64
  func.return %c : f64
}

// -----

// f16 is computed in f32 (libm has no half functions) and truncated back.
// CHECK-LABEL: func.func @f16_through_f32
// CHECK-SAME:    (%[[X:.*]]: f16)
// CHECK-NEXT:    %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:    %[[E:.*]] = tir.call_extern "expf"(%[[W]]) : (f32) -> f32
// CHECK-NEXT:    %[[N:.*]] = arith.truncf %[[E]] : f32 to f16
// CHECK-NEXT:    func.return %[[N]] : f16
func.func @f16_through_f32(%x: f16) -> f16 {
  %e = math.exp %x : f16
  func.return %e : f16
}

// -----

// rsqrt is 1 / sqrt; fpowi is pow of the converted exponent; integer math stays.
// CHECK-LABEL: func.func @expansions
// CHECK-SAME:    (%[[X:.*]]: f32, %[[N:.*]]: i32, %[[I:.*]]: i32)
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[S:.*]] = math.sqrt %[[X]] : f32
// CHECK-NEXT:    %[[R:.*]] = arith.divf %[[ONE]], %[[S]] : f32
// CHECK-NEXT:    %[[F:.*]] = arith.sitofp %[[N]] : i32 to f32
// CHECK-NEXT:    %[[P:.*]] = tir.call_extern "powf"(%[[R]], %[[F]]) : (f32, f32) -> f32
// CHECK-NEXT:    %[[A:.*]] = math.absi %[[I]] : i32
func.func @expansions(%x: f32, %n: i32, %i: i32) -> (f32, i32) {
  %r = math.rsqrt %x : f32
  %p = math.fpowi %r, %n : f32, i32
  %a = math.absi %i : i32
  func.return %p, %a : f32, i32
}

// -----

// Math on vectors stays for the backend's vector math library.
// CHECK-LABEL: func.func @vectors_stay
// CHECK-NEXT:    math.exp %{{.*}} : vector<4xf32>
func.func @vectors_stay(%v: vector<4xf32>) -> vector<4xf32> {
  %e = math.exp %v : vector<4xf32>
  func.return %e : vector<4xf32>
}
