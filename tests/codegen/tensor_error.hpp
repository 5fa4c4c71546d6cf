#pragma once
// How far a computed tensor is from a reference: max |ours − theirs| / max |theirs| over its
// elements (elementwise relative error is meaningless for entries near zero). Against an
// all-zero reference it is the largest absolute difference.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>

template <class Ours, class Theirs>
double tensor_error(std::span<const Ours> ours, std::span<const Theirs> theirs) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < theirs.size(); ++i) {
    diff = std::max(diff, std::abs(static_cast<double>(ours[i]) - static_cast<double>(theirs[i])));
    scale = std::max(scale, std::abs(static_cast<double>(theirs[i])));
  }
  return scale == 0 ? diff : diff / scale;
}
