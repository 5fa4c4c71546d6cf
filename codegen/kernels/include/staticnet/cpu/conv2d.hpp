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
#include "staticnet/cpu/widening_gemm.hpp"
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

// ---- mixed precision ----------------------------------------------------------------------------
// x, the weights' and bias's working copy, z and the gradients of x and z in bf16 or f16 (x may
// be the model's float input, rounded as autocast casts it); the column matrix stays the plan's
// float workspace, holding the operands' exact values. The products run in float through
// widening_gemm and each result is rounded once where it is stored, as a library's bf16
// convolution computes. The threads split the work as above.

// z[n] = act(W · im2col(x[n]) + b), rounded once into z; then epilogue(n, positions) (a fused
// pool) on the positions this thread computed, split on multiples of `Grain` positions.
template <kernels::Conv2dGeometry G, index_t Grain, class Act, bool HasBias, class TX, class TW,
          class B, class TZ, class Epilogue>
void conv2d_forward_widening(ThreadPool& pool, const TX* x, const TW* w, B bias, float* col, TZ* z,
                             Epilogue&& epilogue) {
  pool.run([&](int t) {
    const Range columns = split(G.positions(), pool.threads(), t, Grain);
    if (columns.empty())
      return;
    for (index_t n = 0; n < G.batch; ++n) {
      const auto finish = [&](index_t row, index_t rows, index_t column, index_t count,
                              const float* block, index_t ld) {
        for (index_t r = 0; r < rows; ++r)
          for (index_t c = 0; c < count; ++c)
            kernels::bias_activation_store<Act, HasBias>(
                (n * G.out_channels + row + r) * G.positions() + columns.begin + column + c,
                block[r * ld + c], bias, row + r, z);
      };
      if constexpr (sample_is_its_columns<G>()) {
        widening_gemm<TW>(Transpose::no, Transpose::no, G.out_channels, columns.size(), G.rows(), w,
                          G.rows(), x + n * G.input_sample() + columns.begin, G.positions(),
                          finish);
      } else {
        im2col<G, TW>(x + n * G.input_sample(), col, {0, G.rows()}, columns);  // rounds x
        widening_gemm<float>(Transpose::no, Transpose::no, G.out_channels, columns.size(), G.rows(),
                             w, G.rows(), static_cast<const float*>(col) + columns.begin,
                             G.positions(), finish);
      }
      epilogue(n, columns);
    }
  });
}

// The weight rows of one pass of conv2d_backward_weights_widening: as many as keep its float sums
// (out channels × rows) within 64 KiB of the thread's stack.
template <kernels::Conv2dGeometry G>
constexpr index_t widening_weight_rows() {
  const index_t rows = 16 * 1024 / G.out_channels;
  return rows < 1 ? 1 : rows < G.rows() ? rows : G.rows();
}

// dW += round(Σ_n dz[n] · im2col(x[n])ᵀ) and, when HasBias, db += round(Σ_n Σ_positions dz[n]),
// each sum over the whole batch in float and rounded to the working type `Working` once before it
// is added to the float master's gradient (autocast's gradient is the working copy's). A thread
// owns column-matrix rows as above, and sums them a block at a time over every sample.
template <kernels::Conv2dGeometry G, bool HasBias, class Working, class TX, class TDZ>
void conv2d_backward_weights_widening(ThreadPool& pool, const TX* x, const TDZ* dz, float* col,
                                      float* dw, float* db) {
  constexpr index_t block_rows = widening_weight_rows<G>();
  pool.run([&](int t) {
    const Range rows = split(G.rows(), pool.threads(), t);
    for (index_t first = rows.begin; first < rows.end; first += block_rows) {
      const index_t count = rows.end - first < block_rows ? rows.end - first : block_rows;
      // sums[co · count + r]: the batch's sum for dW[co][first + r].
      float sums[kernels::extent<G.out_channels * block_rows>];
      for (index_t i = 0; i < G.out_channels * count; ++i)
        sums[i] = 0.0f;
      const auto add = [&](index_t row, index_t channels, index_t column, index_t columns,
                           const float* block, index_t ld) {
        for (index_t r = 0; r < channels; ++r)
          for (index_t c = 0; c < columns; ++c)
            sums[(row + r) * count + column + c] += block[r * ld + c];
      };
      for (index_t n = 0; n < G.batch; ++n) {
        const TDZ* dz_n = dz + n * G.output_sample();
        if constexpr (sample_is_its_columns<G>()) {
          widening_gemm<Working>(
              Transpose::no, Transpose::yes, G.out_channels, count, G.positions(), dz_n,
              G.positions(), x + n * G.input_sample() + first * G.positions(), G.positions(), add);
        } else {
          im2col<G, Working>(x + n * G.input_sample(), col, {first, first + count},
                             {0, G.positions()});  // rounds x
          widening_gemm<float>(Transpose::no, Transpose::yes, G.out_channels, count, G.positions(),
                               dz_n, G.positions(),
                               static_cast<const float*>(col) + first * G.positions(),
                               G.positions(), add);
        }
      }
      for (index_t co = 0; co < G.out_channels; ++co)
        for (index_t r = 0; r < count; ++r)
          dw[co * G.rows() + first + r] += kernels::round_to<Working>(sums[co * count + r]);
    }
    if constexpr (HasBias) {
      const Range channels = split(G.out_channels, pool.threads(), t);
      kernels::bias_gradient_channel_range<G.batch, G.out_channels, G.positions(), Working>(
          channels.begin, channels.end, dz, db);
    }
  });
}

// dx[n] = col2im(Wᵀ · dz[n]) for every sample, the product in float into the column matrix and
// each element of dx summed there in float and rounded once (added to dx with Accumulate).
template <kernels::Conv2dGeometry G, bool Accumulate, class Working, class TDZ, class TW, class TDX>
void conv2d_backward_input_widening(ThreadPool& pool, const TDZ* dz, const TW* w, float* col,
                                    TDX* dx) {
  constexpr index_t rows_per_channel = G.kernel_h * G.kernel_w;
  pool.run([&](int t) {
    const Range channels = split(G.in_channels, pool.threads(), t);
    if (channels.empty())
      return;
    const Range rows{channels.begin * rows_per_channel, channels.end * rows_per_channel};
    for (index_t n = 0; n < G.batch; ++n) {
      TDX* const dx_n = dx + n * G.input_sample();
      // A 1x1 convolution's product is dx itself: one term per element, rounded as it is stored.
      const auto finish = [&](index_t row, index_t count, index_t column, index_t columns,
                              const float* block, index_t ld) {
        for (index_t r = 0; r < count; ++r)
          for (index_t c = 0; c < columns; ++c) {
            const index_t i = (rows.begin + row + r) * G.positions() + column + c;
            if constexpr (sample_is_its_columns<G>())
              kernels::write<Accumulate>(dx_n, i, kernels::round_to<Working>(block[r * ld + c]));
            else
              col[i] = block[r * ld + c];
          }
      };
      widening_gemm<Working>(Transpose::yes, Transpose::no, rows.size(), G.positions(),
                             G.out_channels, w + rows.begin, G.rows(), dz + n * G.output_sample(),
                             G.positions(), finish);
      if constexpr (!sample_is_its_columns<G>())
        col2im_rounded<G, Accumulate, Working>(col, dx_n, channels);
    }
  });
}

}  // namespace staticnet::cpu
