// Convolutions under mixed precision (Mixed<bf16>) on the CPU: staticnet/cpu/conv2d.hpp's
// widening variants (im2col and a product in float) and kernels/grouped_conv.hpp's direct bodies
// over bf16 tensors, against the definition written out here in double.
//
// What autocast's convolution computes is a rounding question: the operands rounded to bf16 (the
// model's f32 input too), every sum in float, each result rounded to bf16 once (a gradient's, then
// added to the float master's; an input gradient's, then added to another reader's part). To
// check that bit for bit, every value here is a multiple of 1/16 in [-1, 1]: bf16 holds each
// exactly, and every product and sum of them is exact in float and in double, so the only
// roundings are the ones under test, and the results must equal the reference's exactly. The
// sums need up to 14 significant bits, so their roundings to bf16's 8 often fall on a tie, where
// rounding twice (per sample, per term, or an unrounded operand) gives another value than rounding
// once. The model's f32 input carries a perturbation below bf16's resolution (x·(1 + 2^-10)),
// which the product must round away as autocast's cast does.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <staticnet/cpu/conv2d.hpp>
#include <staticnet/cpu/thread_pool.hpp>
#include <staticnet/kernels/activations.hpp>
#include <staticnet/kernels/grouped_conv.hpp>
#include <staticnet/kernels/low_precision.hpp>

namespace c = staticnet::cpu;
namespace k = staticnet::kernels;
using k::BF16;
using k::index_t;

namespace {

// Multiples of 1/16 in [-1, 1], different for each tensor (`salt`).
float dyadic(index_t i, index_t salt) {
  return static_cast<float>((i * 37 + salt * 11) % 33 - 16) / 16.0f;
}

template <class T>
std::vector<T> tensor(index_t elements, index_t salt) {
  std::vector<T> t;
  for (index_t i = 0; i < elements; ++i)
    t.push_back(k::from_float<T>(dyadic(i, salt)));
  return t;
}

// The model's f32 input: dyadic values, each off by less than half a bf16 step.
std::vector<float> perturbed_input(index_t elements, index_t salt) {
  std::vector<float> x;
  for (index_t i = 0; i < elements; ++i)
    x.push_back(dyadic(i, salt) * (1.0f + 0x1p-10f));
  return x;
}

template <class T>
double value(const std::vector<T>& t, index_t i) {
  return static_cast<double>(k::to_float(t[static_cast<std::size_t>(i)]));
}
// An operand as the product reads it (the f32 input rounded to bf16).
double operand(const std::vector<float>& t, index_t i) {
  return static_cast<double>(k::round_to<BF16>(t[static_cast<std::size_t>(i)]));
}
double operand(const std::vector<BF16>& t, index_t i) {
  return value(t, i);
}
float bf16(double exact) {
  return k::round_to<BF16>(static_cast<float>(exact));  // exact in float: one rounding
}

// The convolution's definition, one output's sum (grouped: the output channel's group's inputs).
template <k::Conv2dGeometry G, class X>
double output_sum(const X& x, const std::vector<BF16>& w, index_t n, index_t co, index_t oh,
                  index_t ow) {
  double sum = 0;
  const index_t first = co / G.group_outputs() * G.group_inputs();
  for (index_t ci = 0; ci < G.group_inputs(); ++ci)
    for (index_t kh = 0; kh < G.kernel_h; ++kh)
      for (index_t kw = 0; kw < G.kernel_w; ++kw) {
        const index_t ih = oh * G.stride_h - G.pad_h + kh, iw = ow * G.stride_w - G.pad_w + kw;
        if (ih >= 0 && ih < G.in_height && iw >= 0 && iw < G.in_width)
          sum +=
              operand(x, ((n * G.in_channels + first + ci) * G.in_height + ih) * G.in_width + iw) *
              value(w, ((co * G.group_inputs() + ci) * G.kernel_h + kh) * G.kernel_w + kw);
      }
  return sum;
}

// ReLU(conv(x) + b) as autocast runs it: the convolution's output rounded, the ReLU on that.
template <k::Conv2dGeometry G, class X>
std::vector<float> expected_forward(const X& x, const std::vector<BF16>& w,
                                    const std::vector<BF16>& b, bool relu) {
  std::vector<float> y;
  for (index_t n = 0; n < G.batch; ++n)
    for (index_t co = 0; co < G.out_channels; ++co)
      for (index_t oh = 0; oh < G.out_height; ++oh)
        for (index_t ow = 0; ow < G.out_width; ++ow) {
          const float z = bf16(output_sum<G>(x, w, n, co, oh, ow) + value(b, co));
          y.push_back(relu && z < 0 ? 0.0f : z);
        }
  return y;
}

// dW = init + bf16(Σ over the batch and positions of dy · x), per weight.
template <k::Conv2dGeometry G, class X>
std::vector<float> expected_weight_gradient(const X& x, const std::vector<BF16>& dy,
                                            const std::vector<float>& init) {
  std::vector<float> dw;
  for (index_t co = 0; co < G.out_channels; ++co)
    for (index_t ci = 0; ci < G.group_inputs(); ++ci)
      for (index_t kh = 0; kh < G.kernel_h; ++kh)
        for (index_t kw = 0; kw < G.kernel_w; ++kw) {
          const index_t c_in = co / G.group_outputs() * G.group_inputs() + ci;
          double sum = 0;
          for (index_t n = 0; n < G.batch; ++n)
            for (index_t oh = 0; oh < G.out_height; ++oh)
              for (index_t ow = 0; ow < G.out_width; ++ow) {
                const index_t ih = oh * G.stride_h - G.pad_h + kh;
                const index_t iw = ow * G.stride_w - G.pad_w + kw;
                if (ih >= 0 && ih < G.in_height && iw >= 0 && iw < G.in_width)
                  sum +=
                      value(dy,
                            ((n * G.out_channels + co) * G.out_height + oh) * G.out_width + ow) *
                      operand(x, ((n * G.in_channels + c_in) * G.in_height + ih) * G.in_width + iw);
              }
          dw.push_back(init[dw.size()] + bf16(sum));
        }
  return dw;
}

// db = init + bf16(Σ over the batch and positions of dy), per channel.
template <k::Conv2dGeometry G>
std::vector<float> expected_bias_gradient(const std::vector<BF16>& dy,
                                          const std::vector<float>& init) {
  std::vector<float> db;
  for (index_t co = 0; co < G.out_channels; ++co) {
    double sum = 0;
    for (index_t n = 0; n < G.batch; ++n)
      for (index_t p = 0; p < G.positions(); ++p)
        sum += value(dy, (n * G.out_channels + co) * G.positions() + p);
    db.push_back(init[static_cast<std::size_t>(co)] + bf16(sum));
  }
  return db;
}

// dx = bf16(Σ over the outputs that read x of dy · w), or with `before` (another reader's part)
// bf16(before + that).
template <k::Conv2dGeometry G>
std::vector<float> expected_input_gradient(const std::vector<BF16>& dy, const std::vector<BF16>& w,
                                           const std::vector<BF16>* before) {
  std::vector<float> dx;
  for (index_t n = 0; n < G.batch; ++n)
    for (index_t c_in = 0; c_in < G.in_channels; ++c_in)
      for (index_t ih = 0; ih < G.in_height; ++ih)
        for (index_t iw = 0; iw < G.in_width; ++iw) {
          const index_t group = c_in / G.group_inputs(), ci = c_in % G.group_inputs();
          double sum = 0;
          for (index_t co = group * G.group_outputs(); co < (group + 1) * G.group_outputs(); ++co)
            for (index_t kh = 0; kh < G.kernel_h; ++kh)
              for (index_t kw = 0; kw < G.kernel_w; ++kw) {
                const index_t rh = ih + G.pad_h - kh, rw = iw + G.pad_w - kw;
                if (rh < 0 || rw < 0 || rh % G.stride_h != 0 || rw % G.stride_w != 0 ||
                    rh / G.stride_h >= G.out_height || rw / G.stride_w >= G.out_width)
                  continue;
                sum += value(dy, ((n * G.out_channels + co) * G.out_height + rh / G.stride_h) *
                                         G.out_width +
                                     rw / G.stride_w) *
                       value(w, ((co * G.group_inputs() + ci) * G.kernel_h + kh) * G.kernel_w + kw);
              }
          const float part = bf16(sum);
          dx.push_back(before ? k::round_to<BF16>(k::to_float((*before)[dx.size()]) + part) : part);
        }
  return dx;
}

template <class T>
void check_equal(const std::vector<T>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  int wrong = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const float g = k::to_float(got[i]);
    if (g != want[i] && ++wrong <= 3)
      FAIL_CHECK("element " << i << ": " << g << ", expected " << want[i]);
  }
  CHECK(wrong == 0);
}

// ---- im2col and a product: cpu/conv2d.hpp's widening variants ----------------------------------

template <k::Conv2dGeometry G>
void check_widening_conv() {
  c::ThreadPool pool(2);
  const std::vector<float> x = perturbed_input(G.input_elements(), 1);
  const std::vector<BF16> x_bf16 = tensor<BF16>(G.input_elements(), 1);
  const std::vector<BF16> w = tensor<BF16>(G.weight_elements(), 2);
  const std::vector<BF16> b = tensor<BF16>(G.out_channels, 3);
  std::vector<float> col(static_cast<std::size_t>(G.rows() * G.positions()));

  SUBCASE(
      "forward from the f32 input, with the bias and a ReLU; the epilogue sees each position "
      "of each sample once") {
    std::vector<BF16> z(static_cast<std::size_t>(G.output_elements()));
    std::vector<int> seen(static_cast<std::size_t>(G.batch * G.positions()), 0);
    c::conv2d_forward_widening<G, 1, k::ReLU, true>(
        pool, x.data(), w.data(), b.data(), col.data(), z.data(), [&](index_t n, c::Range p) {
          for (index_t i = p.begin; i < p.end; ++i)
            ++seen[static_cast<std::size_t>(n * G.positions() + i)];
        });
    check_equal(z, expected_forward<G>(x, w, b, true));
    CHECK(std::vector<int>(seen.size(), 1) == seen);
  }
  SUBCASE("forward from a bf16 input, without a bias") {
    std::vector<BF16> z(static_cast<std::size_t>(G.output_elements()));
    c::conv2d_forward_widening<G, 1, k::Identity, false>(
        pool, x_bf16.data(), w.data(), nullptr, col.data(), z.data(), [](index_t, c::Range) {});
    const std::vector<BF16> zero_bias(static_cast<std::size_t>(G.out_channels), BF16{0});
    check_equal(z, expected_forward<G>(x_bf16, w, zero_bias, false));
  }
  const std::vector<BF16> dy = tensor<BF16>(G.output_elements(), 4);
  SUBCASE("weight and bias gradients: the batch's sums rounded once, added to the float masters'") {
    std::vector<float> dw = tensor<float>(G.weight_elements(), 5);
    std::vector<float> db = tensor<float>(G.out_channels, 6);
    const std::vector<float> want_dw = expected_weight_gradient<G>(x, dy, dw);
    const std::vector<float> want_db = expected_bias_gradient<G>(dy, db);
    c::conv2d_backward_weights_widening<G, true, BF16>(pool, x.data(), dy.data(), col.data(),
                                                       dw.data(), db.data());
    check_equal(dw, want_dw);
    check_equal(db, want_db);
  }
  SUBCASE("input gradient, written and added to another reader's part") {
    std::vector<BF16> dx(static_cast<std::size_t>(G.input_elements()));
    c::conv2d_backward_input_widening<G, false, BF16>(pool, dy.data(), w.data(), col.data(),
                                                      dx.data());
    check_equal(dx, expected_input_gradient<G>(dy, w, nullptr));
    const std::vector<BF16> before = tensor<BF16>(G.input_elements(), 7);
    dx = before;
    c::conv2d_backward_input_widening<G, true, BF16>(pool, dy.data(), w.data(), col.data(),
                                                     dx.data());
    check_equal(dx, expected_input_gradient<G>(dy, w, &before));
  }
}

// 3x3 'same' at stride 1: im2col's shifted-plane path.
constexpr k::Conv2dGeometry same_3x3{.batch = 2,
                                     .in_channels = 3,
                                     .in_height = 8,
                                     .in_width = 8,
                                     .out_channels = 4,
                                     .out_height = 8,
                                     .out_width = 8,
                                     .kernel_h = 3,
                                     .kernel_w = 3,
                                     .stride_h = 1,
                                     .stride_w = 1,
                                     .pad_h = 1,
                                     .pad_w = 1};
// 3x2 at stride 2, padded in height only: the row-by-row path with strided reads.
constexpr k::Conv2dGeometry strided{.batch = 2,
                                    .in_channels = 2,
                                    .in_height = 9,
                                    .in_width = 7,
                                    .out_channels = 3,
                                    .out_height = 5,
                                    .out_width = 3,
                                    .kernel_h = 3,
                                    .kernel_w = 2,
                                    .stride_h = 2,
                                    .stride_w = 2,
                                    .pad_h = 1,
                                    .pad_w = 0};
// 1x1 at stride 1: a sample is its own column matrix.
constexpr k::Conv2dGeometry pointwise{.batch = 2,
                                      .in_channels = 5,
                                      .in_height = 4,
                                      .in_width = 4,
                                      .out_channels = 3,
                                      .out_height = 4,
                                      .out_width = 4,
                                      .kernel_h = 1,
                                      .kernel_w = 1};
// 2,048 output channels: the weight gradient's float sums take 8 column-matrix rows at a time.
constexpr k::Conv2dGeometry wide{.batch = 1,
                                 .in_channels = 3,
                                 .in_height = 4,
                                 .in_width = 4,
                                 .out_channels = 2048,
                                 .out_height = 4,
                                 .out_width = 4,
                                 .kernel_h = 3,
                                 .kernel_w = 3,
                                 .stride_h = 1,
                                 .stride_w = 1,
                                 .pad_h = 1,
                                 .pad_w = 1};
static_assert(c::widening_weight_rows<wide>() == 8);

TEST_CASE("mixed precision conv2d: 3x3 'same', stride 1") {
  check_widening_conv<same_3x3>();
}
TEST_CASE("mixed precision conv2d: 3x2, stride 2, padded in height") {
  check_widening_conv<strided>();
}
TEST_CASE("mixed precision conv2d: 1x1, read in place") {
  check_widening_conv<pointwise>();
}
TEST_CASE("mixed precision conv2d: 2,048 output channels, the weight gradient in blocks of rows") {
  check_widening_conv<wide>();
}

// ---- computed directly: kernels/grouped_conv.hpp -----------------------------------------------

template <k::Conv2dGeometry G>
void check_direct_conv() {
  const std::vector<float> x = perturbed_input(G.input_elements(), 1);
  const std::vector<BF16> w = tensor<BF16>(G.weight_elements(), 2);
  const std::vector<BF16> b = tensor<BF16>(G.out_channels, 3);
  const std::vector<BF16> dy = tensor<BF16>(G.output_elements(), 4);
  const std::vector<float> forward = expected_forward<G>(x, w, b, false);
  SUBCASE("forward, an element and a plane at a time") {
    std::vector<BF16> y(static_cast<std::size_t>(G.output_elements()));
    for (index_t i = 0; i < G.output_elements(); ++i)
      k::grouped_conv_forward<G, true>(i, x.data(), w.data(), b.data(), y.data());
    check_equal(y, forward);
    y.assign(y.size(), BF16{0});
    for (index_t plane = 0; plane < G.batch * G.out_channels; ++plane)
      k::grouped_conv_forward_plane<G, true>(plane, x.data(), w.data(), b.data(), y.data());
    check_equal(y, forward);
  }
  SUBCASE("weight gradient, a weight and a filter at a time") {
    const std::vector<float> init = tensor<float>(G.weight_elements(), 5);
    const std::vector<float> want = expected_weight_gradient<G>(x, dy, init);
    std::vector<float> dw = init;
    for (index_t e = 0; e < G.weight_elements(); ++e)
      k::grouped_conv_backward_weight<G, BF16>(e, x.data(), dy.data(), dw.data());
    check_equal(dw, want);
    dw = init;
    for (index_t f = 0; f < G.out_channels * G.group_inputs(); ++f)
      k::grouped_conv_backward_filter<G, BF16>(f, x.data(), dy.data(), dw.data());
    check_equal(dw, want);
  }
  SUBCASE("bias gradient, in blocks of channels") {
    const std::vector<float> init = tensor<float>(G.out_channels, 6);
    std::vector<float> db = init;
    for (index_t block = 0; block < (G.out_channels + 7) / 8; ++block)
      k::bias_gradient_channel_block<G.batch, G.out_channels, G.positions(), 8, BF16>(
          block, dy.data(), db.data());
    check_equal(db, expected_bias_gradient<G>(dy, init));
  }
  SUBCASE("input gradient, an element and a plane at a time, written and added") {
    const std::vector<BF16> before = tensor<BF16>(G.input_elements(), 7);
    const std::vector<float> written = expected_input_gradient<G>(dy, w, nullptr);
    const std::vector<float> added = expected_input_gradient<G>(dy, w, &before);
    std::vector<BF16> dx(static_cast<std::size_t>(G.input_elements()));
    for (index_t j = 0; j < G.input_elements(); ++j)
      k::grouped_conv_backward_input<G, false>(j, dy.data(), w.data(), dx.data());
    check_equal(dx, written);
    dx = before;
    for (index_t j = 0; j < G.input_elements(); ++j)
      k::grouped_conv_backward_input<G, true>(j, dy.data(), w.data(), dx.data());
    check_equal(dx, added);
    for (index_t plane = 0; plane < G.batch * G.in_channels; ++plane)
      k::grouped_conv_backward_input_plane<G, false>(plane, dy.data(), w.data(), dx.data());
    check_equal(dx, written);
    dx = before;
    for (index_t plane = 0; plane < G.batch * G.in_channels; ++plane)
      k::grouped_conv_backward_input_plane<G, true>(plane, dy.data(), w.data(), dx.data());
    check_equal(dx, added);
  }
}

// Depthwise 3x3 'same' at stride 1 (the plane bodies' shifted runs), and a grouped 3x3 at stride
// 2 (their rows), over 12 samples: the filter's lanes take 8 at a time.
constexpr k::Conv2dGeometry depthwise{.batch = 2,
                                      .in_channels = 4,
                                      .in_height = 6,
                                      .in_width = 5,
                                      .out_channels = 4,
                                      .out_height = 6,
                                      .out_width = 5,
                                      .kernel_h = 3,
                                      .kernel_w = 3,
                                      .stride_h = 1,
                                      .stride_w = 1,
                                      .pad_h = 1,
                                      .pad_w = 1,
                                      .groups = 4};
constexpr k::Conv2dGeometry grouped{.batch = 12,
                                    .in_channels = 4,
                                    .in_height = 7,
                                    .in_width = 7,
                                    .out_channels = 6,
                                    .out_height = 4,
                                    .out_width = 4,
                                    .kernel_h = 3,
                                    .kernel_w = 3,
                                    .stride_h = 2,
                                    .stride_w = 2,
                                    .pad_h = 1,
                                    .pad_w = 1,
                                    .groups = 2};

TEST_CASE("mixed precision direct convolution: depthwise 3x3 'same'") {
  check_direct_conv<depthwise>();
}
TEST_CASE("mixed precision direct convolution: 2 groups, 3x3 at stride 2, 12 samples") {
  check_direct_conv<grouped>();
}

}  // namespace
