#pragma once
// The CPU launchers of the shared kernel bodies (staticnet/kernels/): a loop over an index range,
// split across the thread pool in contiguous pieces. The body is the same function a CUDA kernel
// calls once per thread.
#include <cstdint>
#include <cstring>

#include "staticnet/cpu/thread_pool.hpp"
#include "staticnet/kernels/host_device.hpp"

namespace staticnet::cpu {

using kernels::index_t;

struct Range {
  index_t begin = 0, end = 0;
  constexpr index_t size() const { return end - begin; }
  constexpr bool empty() const { return end <= begin; }
};

// The t-th of `parts` contiguous pieces of [0, count), as equal as boundaries on multiples of
// `grain` allow (count itself need not be a multiple).
constexpr Range split(index_t count, int parts, int t, index_t grain = 1) {
  const index_t units = (count + grain - 1) / grain;
  const index_t base = units / parts, extra = units % parts;
  const index_t first = t * base + (t < extra ? t : extra);
  const index_t last = first + base + (t < extra ? 1 : 0);
  const index_t begin = first * grain, end = last * grain;
  return {begin < count ? begin : count, end < count ? end : count};
}

// body(i) for every i in [0, count).
template <class Body>
void for_each(ThreadPool& pool, index_t count, Body&& body) {
  pool.run([&](int t) {
    const Range r = split(count, pool.threads(), t);
    for (index_t i = r.begin; i < r.end; ++i)
      body(i);
  });
}

// body(row, position) for every row in [0, rows) and position in [0, positions); rows are split
// across threads, positions run in the inner loop (contiguous in memory).
template <class Body>
void for_each_2d(ThreadPool& pool, index_t rows, index_t positions, Body&& body) {
  pool.run([&](int t) {
    const Range r = split(rows, pool.threads(), t);
    for (index_t row = r.begin; row < r.end; ++row)
      for (index_t p = 0; p < positions; ++p)
        body(row, p);
  });
}

// body(plane, row, column) over planes × rows × columns; planes are split across threads,
// columns run in the inner loop.
template <class Body>
void for_each_3d(ThreadPool& pool, index_t planes, index_t rows, index_t columns, Body&& body) {
  pool.run([&](int t) {
    const Range r = split(planes, pool.threads(), t);
    for (index_t plane = r.begin; plane < r.end; ++plane)
      for (index_t row = 0; row < rows; ++row)
        for (index_t column = 0; column < columns; ++column)
          body(plane, row, column);
  });
}

// Zeroes `count` floats (the gradient region before a step accumulates into it).
inline void zero(ThreadPool& pool, float* data, index_t count) {
  pool.run([&](int t) {
    const Range r = split(count, pool.threads(), t, 1024);
    if (!r.empty())
      std::memset(data + r.begin, 0, static_cast<std::size_t>(r.size()) * sizeof(float));
  });
}

}  // namespace staticnet::cpu
