#pragma once
// Linear on the CPU: z = x · Wᵀ, W stored (Out, In) as PyTorch stores it. Products are split by
// output rows or columns across the pool (each thread one single-threaded GEMM call), so no
// thread needs scratch and each output is computed once, in a fixed order.
#include <type_traits>

#include "staticnet/cpu/gemm.hpp"
#include "staticnet/cpu/launch.hpp"
#include "staticnet/cpu/widening_gemm.hpp"
#include "staticnet/kernels/bias_activation.hpp"
#include "staticnet/kernels/low_precision.hpp"

namespace staticnet::cpu {

struct LinearGeometry {
  index_t batch = 0, in_features = 0, out_features = 0;
};

// z = x · Wᵀ, then epilogue(rows) on the batch rows this thread computed.
template <LinearGeometry G, class Epilogue>
void linear_forward(ThreadPool& pool, const float* x, const float* w, float* z,
                    Epilogue&& epilogue) {
  pool.run([&](int t) {
    const Range rows = split(G.batch, pool.threads(), t);
    if (rows.empty())
      return;
    gemm(Transpose::no, Transpose::yes, rows.size(), G.out_features, G.in_features,
         x + rows.begin * G.in_features, G.in_features, w, G.in_features, 0.0f,
         z + rows.begin * G.out_features, G.out_features);
    epilogue(rows);
  });
}

// dW += dzᵀ · x, db += Σ_n dz (when HasBias), and dx = dz · W when dx is not null (the first layer
// with parameters needs no input gradient); with Accumulate, dx += dz · W.
template <LinearGeometry G, bool HasBias, bool Accumulate = false>
void linear_backward(ThreadPool& pool, const float* x, const float* dz, const float* w, float* dw,
                     float* db, float* dx) {
  pool.run([&](int t) {
    const int parts = pool.threads();
    if constexpr (G.in_features >= G.out_features) {  // split dW by its longer side
      const Range cols = split(G.in_features, parts, t);
      gemm(Transpose::yes, Transpose::no, G.out_features, cols.size(), G.batch, dz, G.out_features,
           x + cols.begin, G.in_features, 1.0f, dw + cols.begin, G.in_features);
    } else {
      const Range rows = split(G.out_features, parts, t);
      gemm(Transpose::yes, Transpose::no, rows.size(), G.in_features, G.batch, dz + rows.begin,
           G.out_features, x, G.in_features, 1.0f, dw + rows.begin * G.in_features, G.in_features);
    }
    if constexpr (HasBias) {
      const Range features = split(G.out_features, parts, t);
      kernels::bias_gradient_feature_range<G.batch, G.out_features>(features.begin, features.end,
                                                                    dz, db);
    }
    if (dx != nullptr) {
      const Range rows = split(G.batch, parts, t);
      gemm(Transpose::no, Transpose::no, rows.size(), G.in_features, G.out_features,
           dz + rows.begin * G.out_features, G.out_features, w, G.in_features,
           Accumulate ? 1.0f : 0.0f, dx + rows.begin * G.in_features, G.in_features);
    }
  });
}

// ---- mixed precision ----------------------------------------------------------------------------
// x (bf16, f16, or the model's float input, rounded to the working type as autocast casts it),
// the weights' and bias's working copy and y in low precision; the products in float through
// widening_gemm, each result rounded once where it is stored, as autocast's Linear computes.
// Split across the pool as above.

// y = act(x · Wᵀ + b), rounded once into y.
template <LinearGeometry G, class Act, bool HasBias, class TX, class TW, class B, class TY>
void linear_forward_widening(ThreadPool& pool, const TX* x, const TW* w, B bias, TY* y) {
  pool.run([&](int t) {
    const Range rows = split(G.batch, pool.threads(), t);
    if (rows.empty())
      return;
    widening_gemm<TW>(Transpose::no, Transpose::yes, rows.size(), G.out_features, G.in_features,
                      x + rows.begin * G.in_features, G.in_features, w, G.in_features,
                      [&](index_t row, index_t count, index_t column, index_t columns,
                          const float* block, index_t ld) {
                        for (index_t r = 0; r < count; ++r)
                          for (index_t o = column; o < column + columns; ++o)
                            kernels::bias_activation_store<Act, HasBias>(
                                (rows.begin + row + r) * G.out_features + o,
                                block[r * ld + o - column], bias, o, y);
                      });
  });
}

// dW += dzᵀ · x and db += Σ_n dz, each rounded to the working copy's type `Working` first (the
// gradient autocast computes is the working copy's, which its cast back adds to the float
// master's); dx = dz · W, a product in the working type, rounded to it and then stored into dx
// (a float dx, the gradient of an f32 input, keeps that rounding), or with Accumulate added to it.
// DX is std::nullptr_t where no input gradient is needed (the first layer with parameters), and w
// is not read then either.
template <LinearGeometry G, bool HasBias, bool Accumulate, class Working, class TX, class TDZ,
          class W, class DX>
void linear_backward_widening(ThreadPool& pool, const TX* x, const TDZ* dz, W w, float* dw,
                              float* db, DX dx) {
  pool.run([&](int t) {
    const int parts = pool.threads();
    const Range outputs = split(G.out_features, parts, t);
    if (!outputs.empty())
      widening_gemm<Working>(Transpose::yes, Transpose::no, outputs.size(), G.in_features, G.batch,
                             dz + outputs.begin, G.out_features, x, G.in_features,
                             [&](index_t row, index_t count, index_t column, index_t columns,
                                 const float* block, index_t ld) {
                               for (index_t r = 0; r < count; ++r)
                                 for (index_t i = column; i < column + columns; ++i)
                                   dw[(outputs.begin + row + r) * G.in_features + i] +=
                                       kernels::round_to<Working>(block[r * ld + i - column]);
                             });
    if constexpr (HasBias) {
      for (index_t o = outputs.begin; o < outputs.end; ++o) {
        double sum = 0.0;
        for (index_t n = 0; n < G.batch; ++n)
          sum += static_cast<double>(kernels::load(dz, n * G.out_features + o));
        db[o] += kernels::round_to<Working>(static_cast<float>(sum));
      }
    }
    if constexpr (!std::is_null_pointer_v<DX>) {
      const Range rows = split(G.batch, parts, t);
      if (!rows.empty())
        widening_gemm<Working>(Transpose::no, Transpose::no, rows.size(), G.in_features,
                               G.out_features, dz + rows.begin * G.out_features, G.out_features, w,
                               G.in_features,
                               [&](index_t row, index_t count, index_t column, index_t columns,
                                   const float* block, index_t ld) {
                                 for (index_t r = 0; r < count; ++r)
                                   for (index_t i = column; i < column + columns; ++i)
                                     kernels::write<Accumulate>(
                                         dx, (rows.begin + row + r) * G.in_features + i,
                                         kernels::round_to<Working>(block[r * ld + i - column]));
                               });
    }
  });
}

}  // namespace staticnet::cpu
