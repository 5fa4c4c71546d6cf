#include "staticnet/cuda/linear.hpp"

#include <memory>
#include <utility>

#include "library_checks.hpp"
#include "staticnet/cuda/reductions.hpp"

namespace staticnet::cuda {

// One matmul as cuBLASLt describes it, configured once: the operation (FP32 compute, the
// transposes, the epilogue), the three column-major layouts and the algorithm the heuristic chose.
struct LinearProduct::Product {
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algorithm{};
  std::size_t workspace = 0;

  ~Product() {
    if (c)
      cublasLtMatrixLayoutDestroy(c);
    if (b)
      cublasLtMatrixLayoutDestroy(b);
    if (a)
      cublasLtMatrixLayoutDestroy(a);
    if (operation)
      cublasLtMatmulDescDestroy(operation);
  }

  void set_pointer(cublasLtMatmulDescAttributes_t attribute, const void* pointer) const {
    check(cublasLtMatmulDescSetAttribute(operation, attribute, &pointer, sizeof pointer),
          "cublasLtMatmulDescSetAttribute");
  }

  void run(const Libraries& libraries, const void* a_data, const void* b_data, void* c_data,
           float beta, void* workspace_data) const {
    const float alpha = 1.0f;
    check(cublasLtMatmul(libraries.blas(), operation, &alpha, a_data, a, b_data, b, &beta, c_data,
                         c, c_data, c, &algorithm, workspace_data, workspace, libraries.stream()),
          "cublasLtMatmul");
  }
};

namespace {

// Column-major rows × columns with leading dimension ld, FP32.
cublasLtMatrixLayout_t layout(std::int64_t rows, std::int64_t columns, std::int64_t ld) {
  cublasLtMatrixLayout_t l = nullptr;
  check(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, static_cast<std::uint64_t>(rows),
                                   static_cast<std::uint64_t>(columns), ld),
        "cublasLtMatrixLayoutCreate");
  return l;
}

// The heuristic's preferences, destroyed however make() leaves.
struct Preference {
  cublasLtMatmulPreference_t handle = nullptr;
  Preference() { check(cublasLtMatmulPreferenceCreate(&handle), "cublasLtMatmulPreferenceCreate"); }
  ~Preference() { cublasLtMatmulPreferenceDestroy(handle); }
  Preference(const Preference&) = delete;
  Preference& operator=(const Preference&) = delete;
};

bool binds_bias(cublasLtEpilogue_t e) {
  return e == CUBLASLT_EPILOGUE_BIAS || e == CUBLASLT_EPILOGUE_RELU_BIAS ||
         e == CUBLASLT_EPILOGUE_BGRADB;
}

// An address with exactly `alignment` bytes of alignment (a multiple of it, not of twice it),
// never dereferenced: what cuBLASLt's heuristic is shown instead of the bias pointer that the
// step sets before each run. Its header: routines that do not dereference the bias pointer, like
// the heuristic, "depend on its value to determine expected pointer alignment"; left null, it
// reads as aligned to anything, and an algorithm that loads the bias 16 bytes at a time could be
// chosen for a bias the plan placed at 4 modulo 16.
const void* stand_in_bias(int alignment) {
  return reinterpret_cast<const void*>(std::uintptr_t{1} << 20 | static_cast<unsigned>(alignment));
}

const char* epilogue_name(LinearEpilogue e) {
  switch (e) {
    case LinearEpilogue::relu_bias:
      return "RELU_BIAS";
    case LinearEpilogue::relu:
      return "RELU";
    case LinearEpilogue::bias:
      return "BIAS";
    case LinearEpilogue::none:
      break;
  }
  return "none";
}

}  // namespace

LinearProduct::Choice LinearProduct::make(cublasOperation_t trans_a, cublasOperation_t trans_b,
                                          std::int64_t m, std::int64_t n, std::int64_t k,
                                          std::int64_t lda, std::int64_t ldb, std::int64_t ldc,
                                          cublasLtEpilogue_t epilogue) {
  // Try the epilogue first; if no algorithm supports it within the workspace, the plain product.
  for (const cublasLtEpilogue_t tried : {epilogue, CUBLASLT_EPILOGUE_DEFAULT}) {
    auto p = std::make_unique<Product>();
    check(cublasLtMatmulDescCreate(&p->operation, CUBLAS_COMPUTE_32F, CUDA_R_32F),
          "cublasLtMatmulDescCreate");
    check(cublasLtMatmulDescSetAttribute(p->operation, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a,
                                         sizeof trans_a),
          "cublasLtMatmulDescSetAttribute(TRANSA)");
    check(cublasLtMatmulDescSetAttribute(p->operation, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b,
                                         sizeof trans_b),
          "cublasLtMatmulDescSetAttribute(TRANSB)");
    check(cublasLtMatmulDescSetAttribute(p->operation, CUBLASLT_MATMUL_DESC_EPILOGUE, &tried,
                                         sizeof tried),
          "cublasLtMatmulDescSetAttribute(EPILOGUE)");
    if (binds_bias(tried))
      p->set_pointer(CUBLASLT_MATMUL_DESC_BIAS_POINTER, stand_in_bias(bias_alignment_));
    // The stored (not transposed) shapes of A and B.
    p->a = trans_a == CUBLAS_OP_N ? layout(m, k, lda) : layout(k, m, lda);
    p->b = trans_b == CUBLAS_OP_N ? layout(k, n, ldb) : layout(n, k, ldb);
    p->c = layout(m, n, ldc);

    const Preference preference;
    const std::uint64_t limit = static_cast<std::uint64_t>(workspace_limit_);
    check(cublasLtMatmulPreferenceSetAttribute(
              preference.handle, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &limit, sizeof limit),
          "cublasLtMatmulPreferenceSetAttribute");
    const auto alignment = static_cast<std::uint32_t>(alignment_);
    for (const cublasLtMatmulPreferenceAttributes_t matrix :
         {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
      check(cublasLtMatmulPreferenceSetAttribute(preference.handle, matrix, &alignment,
                                                 sizeof alignment),
            "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT)");
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    const cublasStatus_t status =
        cublasLtMatmulAlgoGetHeuristic(libraries_.blas(), p->operation, p->a, p->b, p->c, p->c,
                                       preference.handle, 1, &result, &found);
    if (status == CUBLAS_STATUS_SUCCESS && found > 0 &&
        result.workspaceSize <= static_cast<std::size_t>(workspace_limit_)) {
      p->algorithm = result.algo;
      p->workspace = static_cast<std::size_t>(workspace_limit_);
      return {std::move(p), tried == epilogue};
    }
    if (tried == CUBLASLT_EPILOGUE_DEFAULT)
      throw Error("cuBLASLt has no FP32 algorithm for a " + std::to_string(m) + "×" +
                  std::to_string(n) + "×" + std::to_string(k) + " product within the plan's " +
                  std::to_string(workspace_limit_) + "-byte workspace");
  }
  return {};
}

LinearProduct::LinearProduct(const Libraries& libraries, LinearShape shape, LinearEpilogue forward,
                             Gradients gradients, bool bias_gradient, std::int64_t workspace_limit,
                             int alignment, int bias_alignment, bool adds_gradients)
    : libraries_(libraries),
      shape_(shape),
      workspace_limit_(workspace_limit),
      alignment_(alignment),
      bias_alignment_(bias_alignment) {
  const std::int64_t batch = shape.batch, in = shape.in_features, out = shape.out_features;
  const cublasLtEpilogue_t fwd = forward == LinearEpilogue::relu_bias ? CUBLASLT_EPILOGUE_RELU_BIAS
                                 : forward == LinearEpilogue::relu    ? CUBLASLT_EPILOGUE_RELU
                                 : forward == LinearEpilogue::bias    ? CUBLASLT_EPILOGUE_BIAS
                                                                      : CUBLASLT_EPILOGUE_DEFAULT;
  forward_ = make(CUBLAS_OP_T, CUBLAS_OP_N, out, batch, in, in, in, out, fwd);
  if (forward == LinearEpilogue::none)
    forward_.fused = true;  // nothing was asked for
  forward_epilogue_ = forward;
  if (gradients == Gradients::none)
    return;
  // (Under adds_gradients the product runs plain, unfused, and backward_weights adds db itself.)
  weights_ =
      make(CUBLAS_OP_N, CUBLAS_OP_T, in, out, batch, in, out, in,
           bias_gradient && !adds_gradients ? CUBLASLT_EPILOGUE_BGRADB : CUBLASLT_EPILOGUE_DEFAULT);
  if (!bias_gradient)
    weights_.fused = true;
  else if (adds_gradients)
    weights_.fused = false;
  if (gradients == Gradients::weights_and_input)
    input_ = make(CUBLAS_OP_N, CUBLAS_OP_N, in, batch, out, in, out, in, CUBLASLT_EPILOGUE_DEFAULT);
  bias_gradient_ = bias_gradient;
  adds_gradients_ = adds_gradients;
}

LinearProduct::~LinearProduct() = default;

void LinearProduct::forward(const float* x, const float* w, const float* b, float* z,
                            void* workspace) const {
  const bool has_bias =
      forward_epilogue_ == LinearEpilogue::bias || forward_epilogue_ == LinearEpilogue::relu_bias;
  if (forward_.fused && has_bias)
    forward_.product->set_pointer(CUBLASLT_MATMUL_DESC_BIAS_POINTER, b);
  forward_.product->run(libraries_, w, x, z, 0.0f, workspace);
}

void LinearProduct::backward_weights(const float* x, const float* dz, float* dw, float* db,
                                     void* workspace) const {
  if (!weights_.product)
    throw Error("LinearProduct::backward_weights: set up without gradients");
  if (bias_gradient_ && weights_.fused)
    weights_.product->set_pointer(CUBLASLT_MATMUL_DESC_BIAS_POINTER, db);
  weights_.product->run(libraries_, x, dz, dw, 1.0f, workspace);
  if (bias_gradient_ && !weights_.fused)
    bias_gradient_features(dz, db, shape_.batch, shape_.out_features, libraries_.stream());
}

void LinearProduct::backward_input(const float* dz, const float* w, float* dx, void* workspace,
                                   bool accumulate) const {
  if (!input_.product)
    throw Error("LinearProduct::backward_input: set up without an input gradient");
  input_.product->run(libraries_, w, dz, dx, accumulate ? 1.0f : 0.0f, workspace);
}

std::string LinearProduct::describe() const {
  std::string s =
      std::to_string(shape_.in_features) + "→" + std::to_string(shape_.out_features) + ": forward ";
  if (forward_epilogue_ == LinearEpilogue::none)
    s += "plain";
  else
    s += forward_.fused ? std::string(epilogue_name(forward_epilogue_)) + " epilogue"
                        : std::string("plain (no algorithm has the ") +
                              epilogue_name(forward_epilogue_) + " epilogue; a kernel adds it)";
  if (!weights_.product)
    s += "; no backward";
  else if (bias_gradient_)
    s += weights_.fused    ? "; dW with the BGRADB epilogue (db in the same pass)"
         : adds_gradients_ ? "; dW, then db added by a reduction kernel (gradient accumulation)"
                           : "; dW, then db by a reduction kernel (no algorithm has BGRADB)";
  else
    s += "; dW";
  if (input_.product)
    s += "; dx";
  return s;
}

}  // namespace staticnet::cuda
