// A small convolutional block as it comes out of a model importer: conv2d, batch norm (with
// constant statistics), relu and a residual add. The quick-start pipeline turns batch norm
// into arithmetic, folds the constants, and fuses the graph into primitive functions the way
// TVM's FuseOps does.
func.func @main(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %conv = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %gamma = relay.const dense<[1.0, 0.5, 2.0, 1.5]> : tensor<4xf32>
  %beta = relay.const dense<[0.0, 0.1, -0.1, 0.2]> : tensor<4xf32>
  %mean = relay.const dense<[0.5, 0.0, 0.25, -0.5]> : tensor<4xf32>
  %var = relay.const dense<[1.0, 4.0, 0.25, 2.0]> : tensor<4xf32>
  %bn = relay.nn.batch_norm %conv, %gamma, %beta, %mean, %var : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>>
  %norm = relay.tuple_get_item %bn[0] : (tuple<tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>>) -> tensor<1x4x8x8xf32>
  %act = relay.nn.relu %norm : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %out = relay.add %act, %x : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %out : tensor<1x4x8x8xf32>
}
