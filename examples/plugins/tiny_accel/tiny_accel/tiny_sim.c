/* Functional simulator of the tiny accelerator (see tiny_sim.h). */
#include "tiny_sim.h"

#include <string.h>

static int64_t dma_bytes, matmul_calls;

int64_t tiny_sim_dma_bytes(void) { return dma_bytes; }
int64_t tiny_sim_matmul_calls(void) { return matmul_calls; }
void tiny_sim_reset(void) { dma_bytes = matmul_calls = 0; }

static void copy(float *dst, const float *src, int64_t rows, int64_t cols, int64_t dst_stride,
                 int64_t src_stride) {
  for (int64_t r = 0; r < rows; ++r)
    memcpy(dst + r * dst_stride, src + r * src_stride, (size_t)cols * sizeof(float));
  dma_bytes += rows * cols * (int64_t)sizeof(float);
}

void tiny_load(float *dst, const float *src, int64_t rows, int64_t cols, int64_t dst_stride,
               int64_t src_stride) {
  copy(dst, src, rows, cols, dst_stride, src_stride);
}

void tiny_store(float *dst, const float *src, int64_t rows, int64_t cols, int64_t dst_stride,
                int64_t src_stride) {
  copy(dst, src, rows, cols, dst_stride, src_stride);
}

void tiny_zero(float *c, int64_t c_stride) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) c[i * c_stride + j] = 0.0f;
}

void tiny_matmul_acc(float *c, const float *a, const float *b, int64_t c_stride,
                     int64_t a_stride, int64_t b_stride) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k) c[i * c_stride + j] += a[i * a_stride + k] * b[k * b_stride + j];
  matmul_calls += 1;
}

void tiny_matmul(float *c, const float *a, const float *b, int64_t c_stride, int64_t a_stride,
                 int64_t b_stride) {
  tiny_zero(c, c_stride);
  tiny_matmul_acc(c, a, b, c_stride, a_stride, b_stride);
}
