/* Functional simulator of the VTA-like target of vta.mlir (see vta_sim.h). */
#include "vta_sim.h"

#include <string.h>

#define BLOCK 8

static vta_counters_t counters;

void vta_sim_read_counters(vta_counters_t *out) { *out = counters; }

void vta_sim_reset_counters(void) { memset(&counters, 0, sizeof(counters)); }

static void copy_rows(void *dst, const void *src, int64_t rows, int64_t cols, int64_t dst_stride,
                      int64_t src_stride, int64_t element) {
  char *d = (char *)dst;
  const char *s = (const char *)src;
  for (int64_t r = 0; r < rows; ++r)
    memcpy(d + r * dst_stride * element, s + r * src_stride * element, (size_t)(cols * element));
  counters.dma_calls += 1;
}

void vta_load_inp(int8_t *dst, const int8_t *src, int64_t rows, int64_t cols,
                  int64_t dst_stride, int64_t src_stride) {
  copy_rows(dst, src, rows, cols, dst_stride, src_stride, 1);
  counters.inp_load_bytes += rows * cols;
  counters.load_bytes += rows * cols;
}

void vta_load_wgt(int8_t *dst, const int8_t *src, int64_t rows, int64_t cols,
                  int64_t dst_stride, int64_t src_stride) {
  copy_rows(dst, src, rows, cols, dst_stride, src_stride, 1);
  counters.wgt_load_bytes += rows * cols;
  counters.load_bytes += rows * cols;
}

void vta_load_acc(int32_t *dst, const int32_t *src, int64_t rows, int64_t cols,
                  int64_t dst_stride, int64_t src_stride) {
  copy_rows(dst, src, rows, cols, dst_stride, src_stride, 4);
  counters.acc_load_bytes += rows * cols * 4;
  counters.load_bytes += rows * cols * 4;
}

void vta_store_acc(int32_t *dst, const int32_t *src, int64_t rows, int64_t cols,
                   int64_t dst_stride, int64_t src_stride) {
  copy_rows(dst, src, rows, cols, dst_stride, src_stride, 4);
  counters.acc_store_bytes += rows * cols * 4;
  counters.store_bytes += rows * cols * 4;
}

void vta_gemm_reset(int32_t *acc, int64_t acc_stride) {
  for (int i = 0; i < BLOCK; ++i)
    for (int j = 0; j < BLOCK; ++j) acc[i * acc_stride + j] = 0;
  counters.gemm_reset_calls += 1;
}

void vta_gemm_update(int32_t *acc, const int8_t *inp, const int8_t *wgt, int64_t acc_stride,
                     int64_t inp_stride, int64_t wgt_stride) {
  for (int i = 0; i < BLOCK; ++i)
    for (int j = 0; j < BLOCK; ++j) {
      int32_t sum = acc[i * acc_stride + j];
      for (int k = 0; k < BLOCK; ++k)
        sum += (int32_t)inp[i * inp_stride + k] * (int32_t)wgt[j * wgt_stride + k];
      acc[i * acc_stride + j] = sum;
    }
  counters.gemm_calls += 1;
  counters.macs += BLOCK * BLOCK * BLOCK;
}

void vta_gemm(int32_t *acc, const int8_t *inp, const int8_t *wgt, int64_t acc_stride,
              int64_t inp_stride, int64_t wgt_stride) {
  for (int i = 0; i < BLOCK; ++i)
    for (int j = 0; j < BLOCK; ++j) acc[i * acc_stride + j] = 0;
  vta_gemm_update(acc, inp, wgt, acc_stride, inp_stride, wgt_stride);
}

void vta_alu_add(int32_t *out, const int32_t *x, const int32_t *y, int64_t out_stride,
                 int64_t x_stride, int64_t y_stride) {
  (void)out_stride;
  (void)x_stride;
  (void)y_stride;
  for (int j = 0; j < BLOCK; ++j) out[j] = x[j] + y[j];
  counters.alu_calls += 1;
}
