// The matrix products of one sample's convolution and of the Linear layers of LeNet-5 and
// SimpleCNN, timed single-threaded through OpenBLAS's cblas_sgemm and through our own tiled
// kernel (codegen/kernels/src/small_gemm.cpp, which the CPU backend uses only for the strips
// OpenBLAS would allocate for). Prints microseconds and GFLOP/s per call, the median of 5 runs of
// 400 calls each.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "small_gemm.hpp"

namespace {

struct Shape {
  const char* what;
  bool transpose_a, transpose_b;
  int m, n, k;
};

template <class F>
double seconds_per_call(F&& f) {
  for (int i = 0; i < 20; ++i)
    f();
  std::vector<double> runs;
  for (int r = 0; r < 5; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 400; ++i)
      f();
    runs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
                   400);
  }
  std::sort(runs.begin(), runs.end());
  return runs[2];
}

}  // namespace

int main() {
  openblas_set_num_threads(1);
  const Shape shapes[] = {
      {"LeNet-5 conv1 forward (W x im2col)", false, false, 6, 784, 25},
      {"LeNet-5 conv1 dW (dz x im2col^T)", false, true, 6, 25, 784},
      {"LeNet-5 conv2 forward", false, false, 16, 100, 150},
      {"LeNet-5 conv2 dW", false, true, 16, 150, 100},
      {"LeNet-5 conv2 dx (W^T x dz)", true, false, 150, 100, 16},
      {"LeNet-5 fc2 forward (x W^T)", false, true, 64, 84, 120},
      {"LeNet-5 fc2 dW (dz^T x)", true, false, 84, 120, 64},
      {"LeNet-5 fc2 dx (dz W)", false, false, 64, 120, 84},
      {"SimpleCNN conv forward", false, false, 16, 1024, 27},
      {"SimpleCNN conv dW", false, true, 16, 27, 1024},
  };
  std::printf("| product | m x n x k | OpenBLAS us | GFLOP/s | ours us | GFLOP/s |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const Shape& s : shapes) {
    std::vector<float> a(static_cast<std::size_t>(s.m) * s.k, 0.5f);
    std::vector<float> b(static_cast<std::size_t>(s.k) * s.n, 0.25f);
    std::vector<float> c(static_cast<std::size_t>(s.m) * s.n);
    const int lda = s.transpose_a ? s.m : s.k, ldb = s.transpose_b ? s.k : s.n;
    const double blas = seconds_per_call([&] {
      cblas_sgemm(CblasRowMajor, s.transpose_a ? CblasTrans : CblasNoTrans,
                  s.transpose_b ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, 1.0f, a.data(), lda,
                  b.data(), ldb, 0.0f, c.data(), s.n);
    });
    const double ours = seconds_per_call([&] {
      staticnet::cpu::detail::small_gemm(s.transpose_a, s.transpose_b, s.m, s.n, s.k, a.data(), lda,
                                         b.data(), ldb, 0.0f, c.data(), s.n);
    });
    const double flops = 2.0 * s.m * s.n * s.k;
    std::printf("| %s | %d x %d x %d | %.2f | %.1f | %.2f | %.1f |\n", s.what, s.m, s.n, s.k,
                blas * 1e6, flops / blas * 1e-9, ours * 1e6, flops / ours * 1e-9);
  }
  return 0;
}
