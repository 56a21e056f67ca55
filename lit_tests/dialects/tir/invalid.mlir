// tir verifier and parser messages.
// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

func.func @kind(%n: index) {
  // expected-error@+1 {{unknown loop kind 'sideways' (kinds: serial, parallel, vectorized, unrolled, thread_binding)}}
  tir.for %i = %n to %n sideways {
  }
  func.return
}

// -----

func.func @thread_without_binding(%n: index) {
  // expected-error@+1 {{'tir.for' op names a thread exactly when its kind is thread_binding}}
  tir.for %i = %n to %n parallel "threadIdx.x" {
  }
  func.return
}

// -----

func.func @binding_without_thread(%n: index) {
  // expected-error@+1 {{'tir.for' op names a thread exactly when its kind is thread_binding}}
  tir.for %i = %n to %n thread_binding {
  }
  func.return
}

// -----

func.func @unknown_thread(%n: index) {
  // expected-error@+1 {{'tir.for' op thread must be one of blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, vthread, got 'warp.x'}}
  tir.for %i = %n to %n thread_binding "warp.x" {
  }
  func.return
}

// -----

func.func @bounds(%n: i32) {
  // expected-error@+1 {{use of value '%n' expects different type than prior uses: 'index' vs 'i32'}}
  tir.for %i = %n to %n serial {
  }
  func.return
}

// -----

func.func @two_results(%x: f32) {
  // expected-error@+1 {{'tir.call_extern' op returns at most one value}}
  %a, %b = tir.call_extern "f"(%x) : (f32) -> (f32, f32)
  func.return
}

// -----

func.func @yield_outside(%x: f32) {
  // expected-error@+1 {{'tir.yield' op 'tir.yield' expects parent op 'tir.for'}}
  tir.yield
}

// -----

func.func @unknown_axis() {
  // expected-error@+1 {{'tir.thread_index' op thread must be one of blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, got 'vthread'}}
  %v = tir.thread_index "vthread"
  func.return
}

// -----

func.func @no_kernel(%n: index) {
  // expected-error@+1 {{'tir.launch' op kernel @missing is not defined}}
  tir.launch @missing() blocks(%n) threads(%n)
  func.return
}

// -----

func.func @k(%A: memref<4xf32>) {
  func.return
}
func.func @wrong_arguments(%B: memref<8xf32>, %n: index) {
  // expected-error@+1 {{'tir.launch' op argument types (memref<8xf32>) do not match kernel @k of type (memref<4xf32>) -> ()}}
  tir.launch @k(%B) blocks(%n) threads(%n) : memref<8xf32>
  func.return
}

// -----

func.func @e() {
  func.return
}
func.func @four_dims(%n: index) {
  // expected-error@+1 {{'tir.launch' op takes 1 to 3 blocks extents (x, y, z), got 4}}
  tir.launch @e() blocks(%n, %n, %n, %n) threads(%n)
  func.return
}

// -----

// A buffer whose byte size is beyond 2^62: `sizeof(float) * n` would wrap (to 4 bytes in C).
func.func @huge_buffer() {
  // expected-error@+1 {{'memref.alloc' op result of type memref<4611686018427387905xf32> needs 18446744073709551620 bytes, more than the 4611686018427387904 (2^62) a buffer may have}}
  %B = memref.alloc() : memref<4611686018427387905xf32>
  memref.dealloc %B : memref<4611686018427387905xf32>
  func.return
}

// -----

// The static part of a buffer with a dynamic dimension is too large already.
func.func @huge_with_dynamic(%n: index) {
  // expected-error@+1 {{'memref.alloc' op result of type memref<?x2305843009213693952xi64> needs 18446744073709551616 bytes, more than the 4611686018427387904 (2^62) a buffer may have}}
  %B = memref.alloc(%n) : memref<?x2305843009213693952xi64>
  memref.dealloc %B : memref<?x2305843009213693952xi64>
  func.return
}

// -----

// expected-error@+1 {{'func.func' op argument 0 of type memref<4611686018427387904xi16> needs 9223372036854775808 bytes, more than the 4611686018427387904 (2^62) a buffer may have}}
func.func @huge_argument(%A: memref<4611686018427387904xi16>) {
  func.return
}
