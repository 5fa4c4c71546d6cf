#pragma once
// Conv2d on the CPU: im2col of one sample into the plan's workspace (its only scratch: one
// sample's column matrix, include/staticnet/plan.hpp), then a GEMM, sample by sample. The
// threads share that one workspace by owning disjoint parts of it:
//   forward          thread t owns output columns (positions) P_t: it writes those columns of the
//                    column matrix and computes z[:, P_t] = W · col[:, P_t]; no barrier between
//                    samples. The epilogue (bias, activation, a fused pool) runs on the same
//                    columns while they are in cache, so P_t is split on whole pool windows.
//   backward weights thread t owns column-matrix rows K_t: it writes those rows and accumulates
//                    dW[:, K_t] += dz[n] · col[K_t, :]ᵀ; it also sums the bias gradient of its
//                    share of the output channels.
//   backward input   thread t owns input channels C_t (all their rows): dcol[K(C_t), :] =
//                    W[:, K(C_t)]ᵀ · dz[n], scattered back into dx[n][C_t] by col2im.
// Each output element is computed by one thread in a fixed order, for every thread count.
//
// A 1x1 convolution with stride 1 and no padding (MobileNet's and the DS-CNN's pointwise ones)
// needs no column matrix: a sample's (Ci, H·W) storage is its im2col already. Its GEMMs read x
// and write dx directly, with the same operands and so the same bits, and leave the workspace
// alone (the plan still reserves it: the CUDA backend's libraries may use it).
#include "staticnet/cpu/gemm.hpp"
#include "staticnet/cpu/im2col.hpp"
#include "staticnet/cpu/launch.hpp"
#include "staticnet/kernels/bias_activation.hpp"
#include "staticnet/kernels/geometry.hpp"

namespace staticnet::cpu {

template <kernels::Conv2dGeometry G>
constexpr bool sample_is_its_columns() {
  return G.kernel_h == 1 && G.kernel_w == 1 && G.stride_h == 1 && G.stride_w == 1 && G.pad_h == 0 &&
         G.pad_w == 0 && G.out_height == G.in_height && G.out_width == G.in_width && G.groups == 1;
}

// z[n] = W · im2col(x[n]) for every sample n, then epilogue(n, positions) on the positions this
// thread computed, split on multiples of `Grain` positions. W is (Co, Ci·KH·KW), z (B, Co, Ho·Wo).
template <kernels::Conv2dGeometry G, index_t Grain, class Epilogue>
void conv2d_forward(ThreadPool& pool, const float* x, const float* w, float* col, float* z,
                    Epilogue&& epilogue) {
  pool.run([&](int t) {
    const Range columns = split(G.positions(), pool.threads(), t, Grain);
    if (columns.empty())
      return;
    for (index_t n = 0; n < G.batch; ++n) {
      const float* columns_of_n = x + n * G.input_sample();
      if constexpr (!sample_is_its_columns<G>()) {
        im2col<G>(columns_of_n, col, {0, G.rows()}, columns);
        columns_of_n = col;
      }
      gemm(Transpose::no, Transpose::no, G.out_channels, columns.size(), G.rows(), w, G.rows(),
           columns_of_n + columns.begin, G.positions(), 0.0f,
           z + n * G.output_sample() + columns.begin, G.positions());
      epilogue(n, columns);
    }
  });
}

// dW += Σ_n dz[n] · im2col(x[n])ᵀ and, when HasBias, db += Σ_n Σ_positions dz[n].
template <kernels::Conv2dGeometry G, bool HasBias>
void conv2d_backward_weights(ThreadPool& pool, const float* x, const float* dz, float* col,
                             float* dw, float* db) {
  pool.run([&](int t) {
    const Range rows = split(G.rows(), pool.threads(), t);
    if (!rows.empty()) {
      for (index_t n = 0; n < G.batch; ++n) {
        const float* columns_of_n = x + n * G.input_sample();
        if constexpr (!sample_is_its_columns<G>()) {
          im2col<G>(columns_of_n, col, rows, {0, G.positions()});
          columns_of_n = col;
        }
        gemm(Transpose::no, Transpose::yes, G.out_channels, rows.size(), G.positions(),
             dz + n * G.output_sample(), G.positions(), columns_of_n + rows.begin * G.positions(),
             G.positions(), 1.0f, dw + rows.begin, G.rows());
      }
    }
    if constexpr (HasBias) {
      const Range channels = split(G.out_channels, pool.threads(), t);
      kernels::bias_gradient_channel_range<G.batch, G.out_channels, G.positions()>(
          channels.begin, channels.end, dz, db);
    }
  });
}

// dx[n] = col2im(Wᵀ · dz[n]) for every sample: the gradient of the convolution's input (added to
// dx with Accumulate).
template <kernels::Conv2dGeometry G, bool Accumulate = false>
void conv2d_backward_input(ThreadPool& pool, const float* dz, const float* w, float* col,
                           float* dx) {
  constexpr index_t rows_per_channel = G.kernel_h * G.kernel_w;
  pool.run([&](int t) {
    const Range channels = split(G.in_channels, pool.threads(), t);
    if (channels.empty())
      return;
    const Range rows{channels.begin * rows_per_channel, channels.end * rows_per_channel};
    // Added to a gradient already there, the product still goes through col2im, whose one
    // addition per element rounds as before; a GEMM adding into dx might add in parts.
    constexpr bool direct = sample_is_its_columns<G>() && !Accumulate;
    for (index_t n = 0; n < G.batch; ++n) {
      float* const product = direct ? dx + n * G.input_sample() : col;
      gemm(Transpose::yes, Transpose::no, rows.size(), G.positions(), G.out_channels,
           w + rows.begin, G.rows(), dz + n * G.output_sample(), G.positions(), 0.0f,
           product + rows.begin * G.positions(), G.positions());
      if constexpr (!direct)
        col2im<G, Accumulate>(col, dx + n * G.input_sample(), channels);
    }
  });
}

}  // namespace staticnet::cpu
