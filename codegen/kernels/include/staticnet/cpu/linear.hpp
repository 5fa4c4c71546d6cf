#pragma once
// Linear on the CPU: z = x · Wᵀ, W stored (Out, In) as PyTorch stores it. Products are split by
// output rows or columns across the pool (each thread one single-threaded GEMM call), so no
// thread needs scratch and each output is computed once, in a fixed order.
#include "staticnet/cpu/gemm.hpp"
#include "staticnet/cpu/launch.hpp"
#include "staticnet/kernels/bias_activation.hpp"

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

}  // namespace staticnet::cpu
