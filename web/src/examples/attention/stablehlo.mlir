module @jit_attention attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8192x128xbf16>, %arg1: tensor<8192x128xbf16>, %arg2: tensor<8192x128xbf16>) -> (tensor<8192x128xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<8192x128xbf16>) -> tensor<128x8192xbf16>
    %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8192x128xbf16>, tensor<128x8192xbf16>) -> tensor<8192x8192xbf16>
    %cst = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<8192x8192xbf16>, tensor<bf16>) -> tensor<8192xbf16>
    %cst_0 = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<8192xbf16>
    %4 = stablehlo.maximum %3, %2 : tensor<8192xbf16>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<8192xbf16>) -> tensor<8192x1xbf16>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<8192x1xbf16>) -> tensor<8192x8192xbf16>
    %7 = stablehlo.subtract %1, %6 : tensor<8192x8192xbf16>
    %8 = stablehlo.exponential %7 : tensor<8192x8192xbf16>
    %9 = stablehlo.convert %8 : (tensor<8192x8192xbf16>) -> tensor<8192x8192xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<8192x8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<8192xf32>) -> tensor<8192x1xf32>
    %12 = stablehlo.convert %11 : (tensor<8192x1xf32>) -> tensor<8192x1xbf16>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<8192x1xbf16>) -> tensor<8192x8192xbf16>
    %14 = stablehlo.divide %8, %13 : tensor<8192x8192xbf16>
    %15 = stablehlo.dot_general %14, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8192x8192xbf16>, tensor<8192x128xbf16>) -> tensor<8192x128xbf16>
    return %15 : tensor<8192x128xbf16>
  }
}
