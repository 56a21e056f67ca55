// An out-of-tree accelerator (examples/plugins/tiny_accel) loaded from its plugin file: its
// target's scratchpads become storage scopes, its predicates claim relay ops for
// relay-annotate-target, its dialect's op reads and prints. Without the plugin, none of it.
// RUN: xtvm-opt --load-plugin %S/../../examples/plugins/tiny_accel/tiny_accel/__init__.py %s \
// RUN:   --split-input-file -p 'relay-annotate-target{targets=tiny}' | filecheck %s
// RUN: not xtvm-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=NO-PLUGIN

// CHECK-LABEL: func.func @offload
// CHECK:         relay.nn.dense %{{.*}}, %{{.*}} {compiler = "tiny"}
// CHECK:         relay.nn.relu %{{.*}} {compiler = "tiny"}
// CHECK:         relay.nn.dense %{{.*}}, %{{.*}} {compiler = "default"}
func.func @offload(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %v: tensor<3x4xf32>) -> tensor<8x3xf32> {
  %d = relay.nn.dense %x, %w : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  %r = relay.nn.relu %d : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %e = relay.nn.dense %r, %v : (tensor<8x4xf32>, tensor<3x4xf32>) -> tensor<8x3xf32>
  func.return %e : tensor<8x3xf32>
}

// -----

// CHECK-LABEL: func.func @cached
// CHECK:         te.cache_read %A {name = "A.tiny_spad", scope = "tiny_spad", readers = ["B"]}
// NO-PLUGIN:     error: 'te.cache_read' op scope 'tiny_spad' is not a known storage scope
func.func @cached(%A: tensor<16xf32>) -> tensor<16xf32> {
  %B = te.compute "B" {
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<16xf32> -> f32
    te.yield %a : f32
  } {axis_names = ["i"]} : tensor<16xf32>
  te.schedule {
    %A.tiny_spad = te.cache_read %A {name = "A.tiny_spad", scope = "tiny_spad", readers = ["B"]} : tensor<16xf32>
  }
  func.return %B : tensor<16xf32>
}

// -----

// CHECK-LABEL: func.func @fenced
// CHECK-NEXT:    tiny.fence
// NO-PLUGIN:     error: unknown operation 'tiny.fence'
func.func @fenced() {
  tiny.fence
  func.return
}
