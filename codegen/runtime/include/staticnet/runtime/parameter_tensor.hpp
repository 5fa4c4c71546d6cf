#pragma once
// A model's named tensor inside one of the arena's persistent regions: what trainers, inference
// programs and the checkpoint loader know of each parameter and running statistic.
#include <cstdint>
#include <string>
#include <vector>

namespace staticnet::runtime {

// One parameter tensor inside the contiguous parameter region (gradients and optimizer moments
// share its element offsets).
// BatchNorm's running statistics are tensors of the same kind in the non-trainable region.
struct ParameterTensor {
  // How PyTorch initialises it: U(±1/√fan_in) (Linear, Conv2d), or ones or zeros (BatchNorm's γ
  // and β, and its running variance and mean).
  enum class Init { uniform, ones, zeros };

  std::string name;                 // PyTorch's state-dict name, e.g. "0.weight"
  std::vector<std::int64_t> shape;  // e.g. {16, 3, 3, 3}
  std::int64_t offset = 0;          // first element in the region
  std::int64_t fan_in = 1;          // inputs each output sums (PyTorch's default init bound)
  Init init = Init::uniform;

  std::int64_t elements() const {
    std::int64_t n = 1;
    for (auto d : shape)
      n *= d;
    return n;
  }
};

}  // namespace staticnet::runtime
