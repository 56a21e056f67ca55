/* A functional simulator of the VTA-like accelerator described in vta.mlir.
 *
 * It implements the target's extern functions on the scratchpad arrays the generated code
 * declares, and counts what a performance model needs: bytes moved by each DMA direction and
 * the calls of each intrinsic. DMA functions copy `rows` rows of `cols` contiguous elements
 * (strides in elements): f(dst, src, rows, cols, dst_stride, src_stride). Intrinsics take
 * their output tiles, then their input tiles, then the row strides of each (accel's tensorize
 * convention; reset takes the output only).
 */
#ifndef VTA_SIM_H
#define VTA_SIM_H

#include <stdint.h>

typedef struct {
  int64_t load_bytes;       /* main memory -> scratchpads, all memories */
  int64_t store_bytes;      /* scratchpads -> main memory */
  int64_t inp_load_bytes;
  int64_t wgt_load_bytes;
  int64_t acc_load_bytes;
  int64_t acc_store_bytes;
  int64_t dma_calls;
  int64_t gemm_calls;       /* vta_gemm + vta_gemm_update */
  int64_t gemm_reset_calls;
  int64_t alu_calls;
  int64_t macs;             /* multiply-accumulates done by the GEMM core */
} vta_counters_t;

void vta_sim_read_counters(vta_counters_t *out);
void vta_sim_reset_counters(void);

/* DMA */
void vta_load_inp(int8_t *dst, const int8_t *src, int64_t rows, int64_t cols,
                  int64_t dst_stride, int64_t src_stride);
void vta_load_wgt(int8_t *dst, const int8_t *src, int64_t rows, int64_t cols,
                  int64_t dst_stride, int64_t src_stride);
void vta_load_acc(int32_t *dst, const int32_t *src, int64_t rows, int64_t cols,
                  int64_t dst_stride, int64_t src_stride);
void vta_store_acc(int32_t *dst, const int32_t *src, int64_t rows, int64_t cols,
                   int64_t dst_stride, int64_t src_stride);

/* GEMM core: acc[i][j] (+)= sum_k inp[i][k] * wgt[j][k] on 8x8 tiles */
void vta_gemm(int32_t *acc, const int8_t *inp, const int8_t *wgt, int64_t acc_stride,
              int64_t inp_stride, int64_t wgt_stride);
void vta_gemm_reset(int32_t *acc, int64_t acc_stride);
void vta_gemm_update(int32_t *acc, const int8_t *inp, const int8_t *wgt, int64_t acc_stride,
                     int64_t inp_stride, int64_t wgt_stride);

/* ALU: out = x + y on 1x8 accumulator vectors */
void vta_alu_add(int32_t *out, const int32_t *x, const int32_t *y, int64_t out_stride,
                 int64_t x_stride, int64_t y_stride);

#endif
