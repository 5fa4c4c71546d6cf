#include "staticnet/runtime/trainer/model_info.hpp"

namespace staticnet::runtime {

std::int64_t ModelInfo::sample_elements() const {
  std::int64_t n = 1;
  for (auto d : sample_shape)
    n *= d;
  return n;
}

std::int64_t ModelInfo::target_elements() const {
  std::int64_t n = 1;
  for (auto d : target_shape)
    n *= d;
  return n;
}

int ModelInfo::moments() const {
  switch (optimizer) {
    case kernels::Optimizer::sgd:
      return 0;
    case kernels::Optimizer::sgd_momentum:
      return 1;
    case kernels::Optimizer::adam:
    case kernels::Optimizer::adamw:
      return 2;
  }
  return 0;
}

const char* optimizer_key(kernels::Optimizer optimizer) {
  switch (optimizer) {
    case kernels::Optimizer::sgd:
      return "sgd";
    case kernels::Optimizer::sgd_momentum:
      return "sgd_momentum";
    case kernels::Optimizer::adam:
      return "adam";
    case kernels::Optimizer::adamw:
      return "adamw";
  }
  return "?";
}

const char* optimizer_name(kernels::Optimizer optimizer) {
  switch (optimizer) {
    case kernels::Optimizer::sgd:
      return "SGD";
    case kernels::Optimizer::sgd_momentum:
      return "SGDMomentum";
    case kernels::Optimizer::adam:
      return "Adam";
    case kernels::Optimizer::adamw:
      return "AdamW";
  }
  return "?";
}

const char* moment_name(kernels::Optimizer optimizer, int moment) {
  if (optimizer == kernels::Optimizer::sgd_momentum)
    return "momentum_buffer";
  return moment == 0 ? "exp_avg" : "exp_avg_sq";
}

}  // namespace staticnet::runtime
