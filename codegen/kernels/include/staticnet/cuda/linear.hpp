#pragma once
// Linear on the GPU through cuBLASLt: z = x · Wᵀ (+ b), W stored (Out, In) as PyTorch stores it,
// every tensor row-major in the arena. cuBLASLt is column-major, so each product is written on
// the transposes: a row-major (R, C) matrix is a column-major (C, R) one with the same bytes.
//
//   forward          zᵀ (Out×B)  = W (Out×In, stored as In×Out: op T) · xᵀ (In×B)
//                    epilogue BIAS, RELU or RELU_BIAS: the bias and a ReLU finish in the product's
//                    store. No ReLU mask (RELU_AUX) is kept: the plan keeps the ReLU's output,
//                    and y > 0 is the mask, so backward needs no bytes the plan does not have.
//   backward weights dWᵀ (In×Out) += xᵀ (In×B) · dz (B×Out: op T of dzᵀ), beta 1, with the
//                    epilogue BGRADB: db = Σ over the batch (the product's k) of dz, in the same
//                    pass. cuBLASLt writes db rather than adding to it, which is the same thing
//                    where the step zeroes the gradients first and db has no other contribution;
//                    under gradient accumulation (adds_gradients) each micro-batch adds to db,
//                    so db is summed by a kernel of ours that adds instead.
//   backward input   dxᵀ (In×B)  = W (In×Out) · dzᵀ (Out×B), beta 0; or beta 1, adding to what
//                    another reader of x wrote there first (a residual block's input)
//
// Algorithms are FP32 (CUBLAS_COMPUTE_32F, no TF32: the setup says FP32 and the CPU reference
// agrees to 1e-5) and chosen by cuBLASLt's heuristic among those whose workspace fits the plan's
// workspace region. If no algorithm supports an epilogue for these sizes, the product runs plain
// and this class finishes the job with its own kernel (fused() and describe() say which).
#include <cstdint>
#include <memory>
#include <string>

#include "staticnet/cuda/libraries.hpp"

namespace staticnet::cuda {

struct LinearShape {
  std::int64_t batch = 0, in_features = 0, out_features = 0;
};

enum class LinearEpilogue { none, bias, relu, relu_bias };

class LinearProduct {
 public:
  // `workspace_limit`: bytes of the plan's workspace region the products may use.
  // `bias_gradient`: the weight gradient's pass also sums db (ignored for Gradients::none).
  // `alignment`: the bytes (16, 8 or 4) every matrix's address is a multiple of; cuBLASLt's
  // heuristic considers only algorithms that work at that alignment (it assumes 256 untold).
  // `bias_alignment`: the same for the bias the forward epilogue reads and the bias gradient
  // BGRADB writes. The heuristic reads it off the bias pointer's value, which is not known when
  // the algorithm is chosen; make() hands it a stand-in address with exactly this alignment.
  // `adds_gradients`: db must be added to (sn::Accumulate), so BGRADB, which writes it, is not
  // used.
  LinearProduct(const Libraries& libraries, LinearShape shape, LinearEpilogue forward,
                Gradients gradients, bool bias_gradient, std::int64_t workspace_limit,
                int alignment, int bias_alignment, bool adds_gradients = false);
  ~LinearProduct();
  LinearProduct(const LinearProduct&) = delete;
  LinearProduct& operator=(const LinearProduct&) = delete;

  // z = x · Wᵀ, plus the epilogue asked for when forward_fused(), else the bare product.
  void forward(const float* x, const float* w, const float* b, float* z, void* workspace) const;
  // dW += dzᵀ · x and, when asked for, db = Σ_n dz (db += Σ_n dz under adds_gradients).
  void backward_weights(const float* x, const float* dz, float* dw, float* db,
                        void* workspace) const;
  // dx = dz · W, or dx += dz · W when `accumulate` (x has another reader, whose part of its
  // gradient is in dx already).
  void backward_input(const float* dz, const float* w, float* dx, void* workspace,
                      bool accumulate = false) const;

  // Whether forward applied the epilogue asked for (else the caller applies bias/activation).
  bool forward_fused() const { return forward_.fused; }
  // "4096→10: forward RELU_BIAS epilogue; dW with BGRADB (db in the same pass); dx"
  std::string describe() const;

 private:
  struct Product;  // one configured cuBLASLt matmul: descriptors, layouts and algorithm
  struct Choice {
    std::unique_ptr<Product> product;
    bool fused = false;
  };
  Choice make(cublasOperation_t trans_a, cublasOperation_t trans_b, std::int64_t m, std::int64_t n,
              std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc,
              cublasLtEpilogue_t epilogue);

  const Libraries& libraries_;
  LinearShape shape_;
  std::int64_t workspace_limit_;
  int alignment_;
  int bias_alignment_;
  LinearEpilogue forward_epilogue_ = LinearEpilogue::none;
  bool bias_gradient_ = false;
  bool adds_gradients_ = false;
  Choice forward_, weights_, input_;
};

}  // namespace staticnet::cuda
