// staticnet's own convolution weight-gradient pass (conv_weight_gradient.hpp) against a float64
// reference computed here from the definition, on geometries that exercise every edge of its
// tiling: several column tiles and filter tiles, stride and padding different in height and width,
// a 1×1 kernel, one chunk (sums written straight out) and many (partial sums in the workspace),
// no bias. It must also give the same bits twice and write nothing outside dW and db.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include <staticnet/cuda/check.hpp>
#include <staticnet/cuda/conv_weight_gradient.hpp>

#include "../tensor_error.hpp"

namespace {

namespace cuda = staticnet::cuda;
using staticnet::kernels::Conv2dGeometry;

Conv2dGeometry geometry(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w,
                        std::int64_t k, std::int64_t kh, std::int64_t kw, std::int64_t sh,
                        std::int64_t sw, std::int64_t ph, std::int64_t pw) {
  Conv2dGeometry g{.batch = n,
                   .in_channels = c,
                   .in_height = h,
                   .in_width = w,
                   .out_channels = k,
                   .kernel_h = kh,
                   .kernel_w = kw,
                   .stride_h = sh,
                   .stride_w = sw,
                   .pad_h = ph,
                   .pad_w = pw};
  g.out_height = (h + 2 * ph - kh) / sh + 1;
  g.out_width = (w + 2 * pw - kw) / sw + 1;
  return g;
}

std::vector<float> random_values(std::size_t count, std::uint32_t seed) {
  std::vector<float> v(count);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / 8388608.0f - 1.0f;  // [-1, 1)
  }
  return v;
}

// dW and db from the definition, in float64; db in the last K entries.
std::vector<double> reference(const Conv2dGeometry& g, const std::vector<float>& x,
                              const std::vector<float>& dz) {
  const std::int64_t weights = g.out_channels * g.rows();
  std::vector<double> out(static_cast<std::size_t>(weights + g.out_channels), 0.0);
  for (std::int64_t n = 0; n < g.batch; ++n)
    for (std::int64_t k = 0; k < g.out_channels; ++k)
      for (std::int64_t oy = 0; oy < g.out_height; ++oy)
        for (std::int64_t ox = 0; ox < g.out_width; ++ox) {
          const double d = dz[static_cast<std::size_t>(
              ((n * g.out_channels + k) * g.out_height + oy) * g.out_width + ox)];
          out[static_cast<std::size_t>(weights + k)] += d;
          for (std::int64_t c = 0; c < g.in_channels; ++c)
            for (std::int64_t r = 0; r < g.kernel_h; ++r)
              for (std::int64_t s = 0; s < g.kernel_w; ++s) {
                const std::int64_t iy = oy * g.stride_h + r - g.pad_h;
                const std::int64_t ix = ox * g.stride_w + s - g.pad_w;
                if (iy < 0 || iy >= g.in_height || ix < 0 || ix >= g.in_width)
                  continue;
                out[static_cast<std::size_t>(
                    ((k * g.in_channels + c) * g.kernel_h + r) * g.kernel_w + s)] +=
                    d * x[static_cast<std::size_t>(
                            ((n * g.in_channels + c) * g.in_height + iy) * g.in_width + ix)];
              }
        }
  return out;
}

template <class T>
T* device_copy(const std::vector<T>& host) {
  T* p = nullptr;
  cuda::check(cudaMalloc(&p, host.size() * sizeof(T)), "cudaMalloc");
  cuda::check(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
              "cudaMemcpy");
  return p;
}

template <class T>
std::vector<T> host_copy(const T* p, std::size_t count) {
  std::vector<T> host(count);
  cuda::check(cudaMemcpy(host.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return host;
}

// Runs the pass twice on random inputs and checks it against the reference. It adds to dW and db
// (a step zeroes its gradients first; under sn::Accumulate each micro-batch adds its part), so
// they start at zero, and the second run leaves exactly twice the first's (x + x is exact).
// `guard` floats around dW and db are poisoned and must stay so; without a bias, so must db.
void check(const Conv2dGeometry& g, std::int64_t workspace_bytes, bool bias,
           std::int64_t expected_chunks) {
  CAPTURE(g.in_channels);
  CAPTURE(g.out_channels);
  CAPTURE(workspace_bytes);
  const cuda::ConvWeightGradient pass(g, workspace_bytes);
  CHECK(pass.chunks() == expected_chunks);

  const auto x = random_values(static_cast<std::size_t>(g.batch * g.input_sample()), 7);
  const auto dz = random_values(static_cast<std::size_t>(g.batch * g.output_sample()), 11);
  const std::int64_t weights = g.out_channels * g.rows();
  constexpr std::int64_t guard = 64;
  const float poison = -12345.0f;
  std::vector<float> out(static_cast<std::size_t>(guard + weights + guard + g.out_channels + guard),
                         poison);
  std::fill(out.begin() + guard, out.begin() + guard + weights, 0.0f);
  if (bias)
    std::fill(out.begin() + guard + weights + guard,
              out.begin() + guard + weights + guard + g.out_channels, 0.0f);
  float* const x_d = device_copy(x);
  float* const dz_d = device_copy(dz);
  float* const out_d = device_copy(out);
  void* workspace = nullptr;
  cuda::check(
      cudaMalloc(&workspace, static_cast<std::size_t>(std::max<std::int64_t>(workspace_bytes, 1))),
      "cudaMalloc");
  float* const dw = out_d + guard;
  float* const db = bias ? out_d + guard + weights + guard : nullptr;

  pass.run(x_d, dz_d, dw, db, workspace, nullptr);
  cuda::check(cudaDeviceSynchronize(), "first run");
  const auto first = host_copy(out_d, out.size());
  pass.run(x_d, dz_d, dw, db, workspace, nullptr);
  cuda::check(cudaDeviceSynchronize(), "second run");
  const auto second = host_copy(out_d, out.size());
  std::vector<float> twice = first;  // the guards (and an unused db) stay poisoned
  for (std::int64_t i = guard; i < guard + weights; ++i)
    twice[static_cast<std::size_t>(i)] *= 2.0f;
  if (bias)
    for (std::int64_t i = 0; i < g.out_channels; ++i)
      twice[static_cast<std::size_t>(guard + weights + guard + i)] *= 2.0f;
  CHECK(second == twice);  // bit for bit: the same sums, added to the first run's

  const auto expected = reference(g, x, dz);
  const std::span<const float> got(first);
  const std::span<const double> want(expected);
  CHECK(tensor_error(got.subspan(guard, weights), want.first(weights)) < 1e-5);
  // db the same way (each entry is a sum of N·Ho·Wo terms of either sign; relative to its own
  // size, one that nearly cancels would ask for more than f32 has).
  if (bias)
    CHECK(tensor_error(got.subspan(guard + weights + guard, g.out_channels),
                       want.subspan(weights, g.out_channels)) < 1e-5);
  else
    CHECK(std::all_of(got.begin() + guard + weights + guard,
                      got.begin() + guard + weights + guard + g.out_channels,
                      [&](float v) { return v == poison; }));
  int touched = 0;
  for (std::int64_t i = 0; i < guard; ++i) {
    touched += first[static_cast<std::size_t>(i)] != poison;
    touched += first[static_cast<std::size_t>(guard + weights + i)] != poison;
    touched +=
        first[static_cast<std::size_t>(guard + weights + guard + g.out_channels + i)] != poison;
  }
  CHECK(touched == 0);
  cudaFree(x_d);
  cudaFree(dz_d);
  cudaFree(out_d);
  cudaFree(workspace);
}

}  // namespace

// Expected chunk counts, by hand: chunks = min(workspace floats / (K·(C·R·S + 1)),
// positions / 256, ceil(264 / blocks per chunk)), at least 1.

TEST_CASE("conv weight gradient: SimpleCNN's 3→16 3×3 with the plan's workspace") {
  // 110,592 B = 27,648 floats / (16 · 28) = 61; 131,072 positions / 256 = 512; 264 / 1 block
  check(geometry(128, 3, 32, 32, 16, 3, 3, 1, 1, 1, 1), 110'592, true, 61);
}

TEST_CASE("conv weight gradient: no workspace, one chunk, sums written straight to dW and db") {
  check(geometry(4, 3, 9, 9, 5, 3, 3, 1, 1, 1, 1), 0, true, 1);
}

TEST_CASE("conv weight gradient: several column and filter tiles, uneven stride and padding") {
  // C·R·S = 7·3·2 = 42 columns + bias = 43: two column tiles; 20 filters: two filter tiles.
  // Output (13 + 2 − 3)/2 + 1 = 7 by (9 + 0 − 2)/2 + 1 = 4. The workspace, 20·43·4·5 bytes,
  // holds 5 chunks' sums; 6 samples have 6·7·4 = 168 positions, under 256: one chunk.
  check(geometry(6, 7, 13, 9, 20, 3, 2, 2, 2, 1, 0), 20 * 43 * 4 * 5, true, 1);
  // The same with 64 samples: 1,792 positions / 256 = 7 chunks; the workspace holds 5.
  check(geometry(64, 7, 13, 9, 20, 3, 2, 2, 2, 1, 0), 20 * 43 * 4 * 5, true, 5);
}

TEST_CASE("conv weight gradient: a 1×1 convolution without bias over many chunks") {
  // 65 columns: three column tiles; 40 filters: three filter tiles → 9 blocks per chunk,
  // ceil(264 / 9) = 30; 32·6·6 = 1,152 positions / 256 = 4; workspace room for 40·65·8 floats: 8.
  check(geometry(32, 64, 6, 6, 40, 1, 1, 1, 1, 0, 0), 40 * 65 * 4 * 8, false, 4);
}

TEST_CASE("conv weight gradient: preferred only while chunks stay short") {
  // SimpleCNN: 131,072 positions in 61 chunks, 2,149 each.
  CHECK(cuda::ConvWeightGradient(geometry(128, 3, 32, 32, 16, 3, 3, 1, 1, 1, 1), 110'592)
            .preferred());
  // The DS-CNN's pointwise 64→64 at batch 100: its plan's workspace (one sample's im2col,
  // 64·25·5·4 = 32,000 B) holds no chunk's sums (64·65 floats), so one chunk of 12,500 positions.
  const cuda::ConvWeightGradient pointwise(geometry(100, 64, 25, 5, 64, 1, 1, 1, 1, 0, 0), 32'000);
  CHECK(pointwise.chunks() == 1);
  CHECK_FALSE(pointwise.preferred());
}
