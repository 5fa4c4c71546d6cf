// The CPU's im2col against its definition, written out here one element at a time:
//   col[(ci·KH + kh)·KW + kw][oh·OW + ow] = x[ci][oh·SH − PH + kh][ow·SW − PW + kw], 0 outside,
// on the geometries of each path (stride 1 as wide as the input, copied as shifted planes; the
// row-by-row copies otherwise) and for the parts of the matrix the threads write: a range of rows
// (backward weights) or of columns that need not start or end on an output row (forward). Every
// element in the range must be written, and nothing outside it.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <staticnet/cpu/im2col.hpp>

namespace c = staticnet::cpu;
namespace k = staticnet::kernels;
using k::index_t;

namespace {

template <k::Conv2dGeometry G>
float expected(const std::vector<float>& x, index_t row, index_t position) {
  const index_t kw = row % G.kernel_w, kh = row / G.kernel_w % G.kernel_h;
  const index_t ci = row / (G.kernel_w * G.kernel_h);
  const index_t oh = position / G.out_width, ow = position % G.out_width;
  const index_t ih = oh * G.stride_h - G.pad_h + kh, iw = ow * G.stride_w - G.pad_w + kw;
  if (ih < 0 || ih >= G.in_height || iw < 0 || iw >= G.in_width)
    return 0.0f;
  return x[static_cast<std::size_t>((ci * G.in_height + ih) * G.in_width + iw)];
}

// Writes `rows` × `columns` of the column matrix over a matrix of NaNs and checks every element.
template <k::Conv2dGeometry G>
void check_part(const std::vector<float>& x, c::Range rows, c::Range columns) {
  std::vector<float> col(static_cast<std::size_t>(G.rows() * G.positions()), std::nanf(""));
  c::im2col<G>(x.data(), col.data(), rows, columns);
  int wrong = 0;
  for (index_t r = 0; r < G.rows(); ++r) {
    for (index_t p = 0; p < G.positions(); ++p) {
      const float got = col[static_cast<std::size_t>(r * G.positions() + p)];
      const bool inside = r >= rows.begin && r < rows.end && p >= columns.begin && p < columns.end;
      const bool right = inside ? std::bit_cast<std::uint32_t>(got) ==
                                      std::bit_cast<std::uint32_t>(expected<G>(x, r, p))
                                : std::isnan(got);
      if (!right && ++wrong <= 3) {
        const std::string want = inside ? std::to_string(expected<G>(x, r, p)) : "untouched";
        FAIL_CHECK("row " << r << ", position " << p << ": " << got << ", expected " << want);
      }
    }
  }
  CHECK(wrong == 0);
}

template <k::Conv2dGeometry G>
void check_geometry() {
  // Distinct nonzero values (a zero read from the wrong place would pass as padding).
  std::vector<float> x(static_cast<std::size_t>(G.input_sample()));
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = 1.0f + static_cast<float>(i);
  CAPTURE(G.in_height);
  CAPTURE(G.in_width);
  CAPTURE(G.out_height);
  CAPTURE(G.out_width);
  CAPTURE(G.kernel_h);
  CAPTURE(G.kernel_w);
  CAPTURE(G.stride_h);
  CAPTURE(G.stride_w);
  CAPTURE(G.pad_h);
  CAPTURE(G.pad_w);
  const index_t rows = G.rows(), positions = G.positions();
  check_part<G>(x, {0, rows}, {0, positions});
  // Empty shares (a thread with nothing to do) write nothing.
  check_part<G>(x, {0, rows}, {positions / 2, positions / 2});
  check_part<G>(x, {rows / 2, rows / 2}, {0, positions});
  // The forward pass's shares: columns split at uneven points and on a row's end, every row.
  for (const index_t cut :
       {index_t{1}, G.out_width - 1, G.out_width, G.out_width + 1, positions / 3}) {
    if (cut <= 0 || cut >= positions)
      continue;
    CAPTURE(cut);
    check_part<G>(x, {0, rows}, {0, cut});
    check_part<G>(x, {0, rows}, {cut, positions});
    check_part<G>(x, {0, rows}, {cut / 2, (cut + positions) / 2});
  }
  // The weight gradient's shares: a range of rows, every column.
  check_part<G>(x, {rows / 3, rows - rows / 3}, {0, positions});
}

}  // namespace

TEST_CASE("im2col: stride 1 as wide as the input, as shifted planes, equals its definition") {
  static_assert(k::shifts_by_tap(k::Conv2dGeometry{.batch = 1,
                                                   .in_channels = 2,
                                                   .in_height = 6,
                                                   .in_width = 5,
                                                   .out_channels = 1,
                                                   .out_height = 6,
                                                   .out_width = 5,
                                                   .kernel_h = 3,
                                                   .kernel_w = 3,
                                                   .pad_h = 1,
                                                   .pad_w = 1}));
  // 3x3 'same' (ResNet-8's).
  check_geometry<k::Conv2dGeometry{.batch = 1,
                                   .in_channels = 2,
                                   .in_height = 6,
                                   .in_width = 5,
                                   .out_channels = 1,
                                   .out_height = 6,
                                   .out_width = 5,
                                   .kernel_h = 3,
                                   .kernel_w = 3,
                                   .pad_h = 1,
                                   .pad_w = 1}>();
  // Keras 'same' with an even kernel: nothing before, one row and column after.
  check_geometry<k::Conv2dGeometry{.batch = 1,
                                   .in_channels = 2,
                                   .in_height = 4,
                                   .in_width = 7,
                                   .out_channels = 1,
                                   .out_height = 4,
                                   .out_width = 7,
                                   .kernel_h = 2,
                                   .kernel_w = 4,
                                   .pad_h = 0,
                                   .pad_w = 1}>();
  // Taller than the input needs: 'valid' in height (fewer output rows), 'same' in width.
  check_geometry<k::Conv2dGeometry{.batch = 1,
                                   .in_channels = 3,
                                   .in_height = 7,
                                   .in_width = 4,
                                   .out_channels = 1,
                                   .out_height = 3,
                                   .out_width = 4,
                                   .kernel_h = 5,
                                   .kernel_w = 3,
                                   .pad_h = 0,
                                   .pad_w = 1}>();
  // A kernel wider than the plane: some taps read nothing of any row.
  check_geometry<k::Conv2dGeometry{.batch = 1,
                                   .in_channels = 1,
                                   .in_height = 3,
                                   .in_width = 3,
                                   .out_channels = 1,
                                   .out_height = 3,
                                   .out_width = 3,
                                   .kernel_h = 5,
                                   .kernel_w = 7,
                                   .pad_h = 2,
                                   .pad_w = 3}>();
  // An output taller than the input (pads of 3 before and, implied, 4 after; kernel 2 high).
  check_geometry<k::Conv2dGeometry{.batch = 1,
                                   .in_channels = 2,
                                   .in_height = 3,
                                   .in_width = 4,
                                   .out_channels = 1,
                                   .out_height = 7,
                                   .out_width = 4,
                                   .kernel_h = 2,
                                   .kernel_w = 3,
                                   .pad_h = 3,
                                   .pad_w = 3}>();
  // Kernel rows that read only below the plane (5 high on 2 rows, no padding: out_height
  // 2 needs 4 rows of padding after).
  check_geometry<k::Conv2dGeometry{.batch = 1,
                                   .in_channels = 2,
                                   .in_height = 2,
                                   .in_width = 3,
                                   .out_channels = 1,
                                   .out_height = 2,
                                   .out_width = 3,
                                   .kernel_h = 5,
                                   .kernel_w = 1}>();
  // Padding above taller than the output: kernel rows that read only above the plane.
  check_geometry<k::Conv2dGeometry{.batch = 1,
                                   .in_channels = 2,
                                   .in_height = 2,
                                   .in_width = 3,
                                   .out_channels = 1,
                                   .out_height = 3,
                                   .out_width = 3,
                                   .kernel_h = 1,
                                   .kernel_w = 2,
                                   .pad_h = 4}>();
  // A plane one column wide.
  check_geometry<k::Conv2dGeometry{.batch = 1,
                                   .in_channels = 2,
                                   .in_height = 5,
                                   .in_width = 1,
                                   .out_channels = 1,
                                   .out_height = 5,
                                   .out_width = 1,
                                   .kernel_h = 3,
                                   .kernel_w = 3,
                                   .pad_h = 1,
                                   .pad_w = 1}>();
}

TEST_CASE("im2col: strided and narrower outputs, row by row, equal their definition") {
  static_assert(!k::shifts_by_tap(k::Conv2dGeometry{.batch = 1,
                                                    .in_channels = 2,
                                                    .in_height = 6,
                                                    .in_width = 6,
                                                    .out_channels = 1,
                                                    .out_height = 4,
                                                    .out_width = 4,
                                                    .kernel_h = 3,
                                                    .kernel_w = 3}));
  // 'valid' 3x3: narrower output.
  check_geometry<k::Conv2dGeometry{.batch = 1,
                                   .in_channels = 2,
                                   .in_height = 6,
                                   .in_width = 6,
                                   .out_channels = 1,
                                   .out_height = 4,
                                   .out_width = 4,
                                   .kernel_h = 3,
                                   .kernel_w = 3}>();
  // The DS-CNN's first convolution, 10x4 stride 2 on 49x10 'same': pads 4/5 and 1/1.
  check_geometry<k::Conv2dGeometry{.batch = 1,
                                   .in_channels = 1,
                                   .in_height = 49,
                                   .in_width = 10,
                                   .out_channels = 1,
                                   .out_height = 25,
                                   .out_width = 5,
                                   .kernel_h = 10,
                                   .kernel_w = 4,
                                   .stride_h = 2,
                                   .stride_w = 2,
                                   .pad_h = 4,
                                   .pad_w = 1}>();
  // ResNet-8's downsampling 3x3 stride 2 on an even input: 0 before, 1 after.
  check_geometry<k::Conv2dGeometry{.batch = 1,
                                   .in_channels = 2,
                                   .in_height = 8,
                                   .in_width = 8,
                                   .out_channels = 1,
                                   .out_height = 4,
                                   .out_width = 4,
                                   .kernel_h = 3,
                                   .kernel_w = 3,
                                   .stride_h = 2,
                                   .stride_w = 2}>();
}
