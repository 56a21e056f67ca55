/* Simulator of the tiny accelerator (tiny.mlir): its DMA and matmul functions, counted. */
#ifndef TINY_SIM_H
#define TINY_SIM_H

#include <stdint.h>

int64_t tiny_sim_dma_bytes(void);
int64_t tiny_sim_matmul_calls(void);
void tiny_sim_reset(void);

void tiny_load(float *dst, const float *src, int64_t rows, int64_t cols, int64_t dst_stride,
               int64_t src_stride);
void tiny_store(float *dst, const float *src, int64_t rows, int64_t cols, int64_t dst_stride,
                int64_t src_stride);
void tiny_matmul(float *c, const float *a, const float *b, int64_t c_stride, int64_t a_stride,
                 int64_t b_stride);
void tiny_zero(float *c, int64_t c_stride);
void tiny_matmul_acc(float *c, const float *a, const float *b, int64_t c_stride,
                     int64_t a_stride, int64_t b_stride);

#endif
