#include "staticnet/cuda/conv_weight_gradient.hpp"

#include <algorithm>
#include <climits>

#include "staticnet/cuda/check.hpp"

namespace staticnet::cuda {
namespace {

constexpr int threads = 256;
// A block sums a tile of 16 filters × 32 columns (a filter's columns are its C·R·S weights, then
// its bias) over a chunk of positions, 128 positions at a time: d(output) of the 16 filters and
// the 32 columns' inputs (im2col) at those positions are staged in shared memory, and each thread
// keeps two sums (one column, two filters), reading four positions per 16-byte load. The next
// 128 positions are loaded into registers while the current ones are summed: with few blocks per
// SM (the workspace bounds the chunks), waiting on those loads is what would take the time.
constexpr int tile_filters = 16;
constexpr int tile_columns = 32;
constexpr int tile_positions = 128;
constexpr int rows_per_pass = threads / tile_positions;       // rows one pass of loads fills
constexpr int column_loads = tile_columns / rows_per_pass;    // per thread per tile
constexpr int gradient_loads = tile_filters / rows_per_pass;  // per thread per tile
static_assert(threads == tile_filters / 2 * tile_columns && threads % tile_positions == 0);
// Enough blocks to fill a large GPU (an H100 has 132 SMs) without many chunks of few positions.
constexpr std::int64_t target_blocks = 264;
constexpr std::int64_t min_chunk_positions = 2 * tile_positions;
// Past this many positions per chunk, cuDNN's engines measured faster (ConvWeightGradient::
// preferred()).
constexpr std::int64_t max_preferred_chunk_positions = 4096;

struct Shape {
  int channels, height, width, filters, out_height, out_width;
  int kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w;
  int weights;          // C·R·S
  int columns;          // weights + 1
  int positions;        // N·Ho·Wo, the length of every sum (preferred() checks it fits an int)
  int chunk_positions;  // of them per chunk
};

// Per column of a tile: its input channel's plane offset and kernel row and column; plane = -1
// marks the bias column (input 1), -2 a column past the end (input 0).
struct Columns {
  int plane[tile_columns], row[tile_columns], col[tile_columns];
};

// What one thread loads for one tile: position `mine` of the tile, for the columns and filters
// lane_row + rows_per_pass·m.
struct Staged {
  float inputs[column_loads];
  float gradients[gradient_loads];
};

__device__ void load_tile(const Shape& s, const Columns& columns, const float* __restrict__ x,
                          const float* __restrict__ dz, int q, int end, int first_filter,
                          int lane_row, Staged& out) {
  const bool valid = q < end;
  const int out_plane = s.out_height * s.out_width;
  const std::int64_t n = valid ? q / out_plane : 0;
  const int p = valid ? q % out_plane : 0;
  const int y0 = p / s.out_width * s.stride_h - s.pad_h;
  const int x0 = p % s.out_width * s.stride_w - s.pad_w;
  const float* const sample = x + n * s.channels * s.height * s.width;
#pragma unroll
  for (int m = 0; m < column_loads; ++m) {
    const int r = lane_row + rows_per_pass * m;
    float v = 0.0f;
    if (valid && columns.plane[r] >= 0) {
      const int iy = y0 + columns.row[r], ix = x0 + columns.col[r];
      if (iy >= 0 && iy < s.height && ix >= 0 && ix < s.width)
        v = sample[columns.plane[r] + iy * s.width + ix];
    } else if (valid && columns.plane[r] == -1) {
      v = 1.0f;
    }
    out.inputs[m] = v;
  }
  const float* const gradient = dz + n * s.filters * out_plane + p;
#pragma unroll
  for (int m = 0; m < gradient_loads; ++m) {
    const int f = first_filter + lane_row + rows_per_pass * m;
    out.gradients[m] = valid && f < s.filters ? gradient[std::int64_t{f} * out_plane] : 0.0f;
  }
}

// Block (column tile x, filter tile y, chunk z). Writes its sums to
// partial[chunk][filter][column], or straight to dw and db when there is one chunk.
__global__ void __launch_bounds__(threads)
    partial_sums_kernel(Shape s, const float* __restrict__ x, const float* __restrict__ dz,
                        float* __restrict__ partial, float* __restrict__ dw,
                        float* __restrict__ db) {
  __shared__ Columns columns;
  // Rows padded by 4 floats: a quarter-warp's 16-byte loads of 8 consecutive columns then hit 32
  // different banks.
  __shared__ __align__(16) float inputs[tile_columns][tile_positions + 4];
  __shared__ __align__(16) float gradients[tile_filters][tile_positions];

  const int first_column = blockIdx.x * tile_columns;
  const int first_filter = blockIdx.y * tile_filters;
  if (threadIdx.x < tile_columns) {
    const int j = first_column + static_cast<int>(threadIdx.x);
    const int rs = s.kernel_h * s.kernel_w;
    columns.plane[threadIdx.x] = j < s.weights    ? j / rs * s.height * s.width
                                 : j == s.weights ? -1
                                                  : -2;
    columns.row[threadIdx.x] = j < s.weights ? j % rs / s.kernel_w : 0;
    columns.col[threadIdx.x] = j < s.weights ? j % s.kernel_w : 0;
  }
  __syncthreads();

  const int mine = static_cast<int>(threadIdx.x) % tile_positions;
  const int lane_row = static_cast<int>(threadIdx.x) / tile_positions;
  // What each thread sums: column `c`, filters f0 and f0 + 8.
  const int c = static_cast<int>(threadIdx.x) % tile_columns;
  const int f0 = static_cast<int>(threadIdx.x) / tile_columns;
  float sum0 = 0.0f, sum1 = 0.0f;

  const int begin = static_cast<int>(blockIdx.z) * s.chunk_positions;
  const int end = min(begin + s.chunk_positions, s.positions);
  Staged next;
  load_tile(s, columns, x, dz, begin + mine, end, first_filter, lane_row, next);
  for (int base = begin; base < end; base += tile_positions) {
#pragma unroll
    for (int m = 0; m < column_loads; ++m)
      inputs[lane_row + rows_per_pass * m][mine] = next.inputs[m];
#pragma unroll
    for (int m = 0; m < gradient_loads; ++m)
      gradients[lane_row + rows_per_pass * m][mine] = next.gradients[m];
    __syncthreads();
    if (base + tile_positions < end)
      load_tile(s, columns, x, dz, base + tile_positions + mine, end, first_filter, lane_row, next);
#pragma unroll 8
    for (int i = 0; i < tile_positions; i += 4) {
      const float4 in = *reinterpret_cast<const float4*>(&inputs[c][i]);
      const float4 g0 = *reinterpret_cast<const float4*>(&gradients[f0][i]);
      const float4 g1 = *reinterpret_cast<const float4*>(&gradients[f0 + 8][i]);
      sum0 = fmaf(g0.x, in.x, sum0), sum0 = fmaf(g0.y, in.y, sum0);
      sum0 = fmaf(g0.z, in.z, sum0), sum0 = fmaf(g0.w, in.w, sum0);
      sum1 = fmaf(g1.x, in.x, sum1), sum1 = fmaf(g1.y, in.y, sum1);
      sum1 = fmaf(g1.z, in.z, sum1), sum1 = fmaf(g1.w, in.w, sum1);
    }
    __syncthreads();  // everyone has summed this tile before the next overwrites it
  }

  const int j = first_column + c;
  if (j >= s.columns)
    return;
  const int filters[2] = {first_filter + f0, first_filter + f0 + 8};
  const float sums[2] = {sum0, sum1};
  for (int t = 0; t < 2; ++t) {
    const int k = filters[t];
    if (k >= s.filters)
      continue;
    if (gridDim.z > 1)
      partial[(blockIdx.z * std::int64_t{s.filters} + k) * s.columns + j] = sums[t];
    else if (j < s.weights)
      dw[std::int64_t{k} * s.weights + j] += sums[t];
    else if (db)
      db[k] += sums[t];
  }
}

// One thread per (filter, column): the chunks' partial sums added in chunk order.
__global__ void finish_kernel(Shape s, std::int64_t chunks, const float* __restrict__ partial,
                              float* __restrict__ dw, float* __restrict__ db) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t outputs = std::int64_t{s.filters} * s.columns;
  if (i >= outputs)
    return;
  float total = 0.0f;
#pragma unroll 8  // the loads of eight chunks in flight at once; the adds stay in chunk order
  for (std::int64_t c = 0; c < chunks; ++c)
    total += partial[c * outputs + i];
  const std::int64_t k = i / s.columns, j = i % s.columns;
  if (j < s.weights)
    dw[k * s.weights + j] += total;
  else if (db)
    db[k] += total;
}

Shape shape_of(const kernels::Conv2dGeometry& g, std::int64_t chunks) {
  auto narrow = [](std::int64_t v) { return static_cast<int>(v); };
  Shape s{};
  s.channels = narrow(g.in_channels), s.height = narrow(g.in_height), s.width = narrow(g.in_width);
  s.filters = narrow(g.out_channels), s.out_height = narrow(g.out_height);
  s.out_width = narrow(g.out_width);
  s.kernel_h = static_cast<int>(g.kernel_h), s.kernel_w = static_cast<int>(g.kernel_w);
  s.stride_h = static_cast<int>(g.stride_h), s.stride_w = static_cast<int>(g.stride_w);
  s.pad_h = static_cast<int>(g.pad_h), s.pad_w = static_cast<int>(g.pad_w);
  s.weights = static_cast<int>(g.rows());
  s.columns = s.weights + 1;
  s.positions = narrow(g.batch * g.positions());
  s.chunk_positions = narrow((g.batch * g.positions() + chunks - 1) / chunks);
  return s;
}

}  // namespace

ConvWeightGradient::ConvWeightGradient(const kernels::Conv2dGeometry& geometry,
                                       std::int64_t workspace_bytes)
    : g_(geometry) {
  const std::int64_t columns = g_.rows() + 1;
  const std::int64_t blocks_per_chunk = (columns + tile_columns - 1) / tile_columns *
                                        ((g_.out_channels + tile_filters - 1) / tile_filters);
  const std::int64_t positions = g_.batch * g_.positions();
  const std::int64_t by_workspace =
      workspace_bytes / static_cast<std::int64_t>(sizeof(float)) / (g_.out_channels * columns);
  const std::int64_t by_work = positions / min_chunk_positions;
  const std::int64_t by_fill = (target_blocks + blocks_per_chunk - 1) / blocks_per_chunk;
  chunks_ = std::max<std::int64_t>(1, std::min({by_workspace, by_work, by_fill}));
  // The kernels index positions and elements with 32-bit ints.
  indices_fit_ =
      std::max({positions, g_.batch * g_.input_sample(), g_.batch * g_.output_sample()}) <= INT_MAX;
}

bool ConvWeightGradient::preferred() const {
  return indices_fit_ &&
         (g_.batch * g_.positions() + chunks_ - 1) / chunks_ <= max_preferred_chunk_positions;
}

void ConvWeightGradient::run(const float* x, const float* dz, float* dw, float* db, void* workspace,
                             cudaStream_t stream) const {
  if (!indices_fit_)
    throw Error("conv weight gradient: tensors of more than 2^31 elements (use cuDNN's wgrad)");
  const Shape s = shape_of(g_, chunks_);
  float* const partial = static_cast<float*>(workspace);
  const dim3 grid(static_cast<unsigned>((s.columns + tile_columns - 1) / tile_columns),
                  static_cast<unsigned>((s.filters + tile_filters - 1) / tile_filters),
                  static_cast<unsigned>(chunks_));
  partial_sums_kernel<<<grid, threads, 0, stream>>>(s, x, dz, partial, dw, db);
  check_launch("conv weight gradient: partial sums");
  if (chunks_ > 1) {
    finish_kernel<<<blocks_for(s.filters * s.columns), block_threads, 0, stream>>>(s, chunks_,
                                                                                   partial, dw, db);
    check_launch("conv weight gradient: finish");
  }
}

}  // namespace staticnet::cuda
