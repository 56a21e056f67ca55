// A primitive function outlined by relay-fuse-ops is located at its first op, and its call at
// its last: an error about the kernel lowered from it points at the source.
// RUN: xtvm-opt %s -p relay-fuse-ops --print-debuginfo | filecheck %s
// RUN: not xtvm-opt %s -p 'relay-fuse-ops,convert-relay-to-te,convert-scf-to-cf' 2>&1 \
// RUN:   | filecheck %s --check-prefix=ERR

// CHECK-LABEL: func.func private @fused_less_where
// CHECK:       } loc("{{.*}}relay-fuse-ops-locations.mlir":[[# @LINE + 9]]:9)
// CHECK-LABEL: func.func @select
// CHECK:         func.call @fused_less_where({{.*}} loc("{{.*}}relay-fuse-ops-locations.mlir":[[# @LINE + 8]]:8)

// The lowered select reads its condition in an scf.if, which convert-scf-to-cf turns into
// blocks that a te.compute body cannot hold.
// ERR: relay-fuse-ops-locations.mlir:[[# @LINE + 3]]:9: error: 'te.compute' op region 'body' at position 0 expected a single block
// ERR: note: the IR was produced by 'convert-scf-to-cf'
func.func @select(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %lt = relay.less %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %w = relay.where %lt, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %w : tensor<4xf32>
}
