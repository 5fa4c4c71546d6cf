#pragma once
// One fixture check for every backend: the generated step against PyTorch
// (tests/reference/make_fixtures.py) with the same initial weights and batch, three optimizer
// steps; the losses of every step, the gradients of the first and the weights after the third must
// agree.
//
// Tolerances (the issue's): f32 losses within 1e-5 relative; gradients and weights within 1e-4,
// where a tensor's error is max |ours − PyTorch| / max |PyTorch| over its elements (elementwise
// relative error is meaningless for entries near zero).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <staticnet/runtime/checkpoints/safetensors_reader.hpp>
#include <staticnet/runtime/trainer/backend.hpp>
#include <staticnet/runtime/trainer/model_info.hpp>

#include "fixture_batch.hpp"
#include "tensor_error.hpp"

namespace pytorch_fixture {

namespace rt = staticnet::runtime;
namespace k = staticnet::kernels;

// The fixtures' folder: the source tree's, as the build saw it, unless STATICNET_FIXTURE_DIR in
// the environment names another (a test program carried to a GPU machine whose checkout lies
// elsewhere; scripts/gpu-checks.sh sets it).
inline std::filesystem::path fixture_dir() {
  if (const char* dir = std::getenv("STATICNET_FIXTURE_DIR"); dir && *dir)
    return dir;
  return STATICNET_FIXTURE_DIR;
}

inline rt::SafetensorsReader fixture(const std::string& model) {
  return rt::SafetensorsReader::open(fixture_dir() / (model + ".safetensors"));
}

inline std::vector<double> values(const rt::SafetensorsReader& file, const std::string& name) {
  const rt::SafetensorsTensorInfo* t = file.find(name);
  REQUIRE_MESSAGE(t != nullptr, "fixture tensor " << name
                                                  << " is missing: regenerate with "
                                                     "tests/reference/make_fixtures.py");
  const auto bytes = file.data(*t);
  std::vector<double> out(t->element_count());
  if (t->dtype == rt::Dtype::f64) {
    std::memcpy(out.data(), bytes.data(), bytes.size());
  } else {
    std::vector<float> f(t->element_count());
    std::memcpy(f.data(), bytes.data(), bytes.size());
    out.assign(f.begin(), f.end());
  }
  return out;
}

inline double setting(const rt::SafetensorsReader& file, const std::string& key) {
  const auto it = file.metadata().find(key);
  REQUIRE_MESSAGE(it != file.metadata().end(), "fixture metadata " << key << " is missing");
  return std::stod(it->second);
}

// The fixture batch into the backend's batch buffers. Written before every step: a backend may
// stage batches in buffers it alternates between.
inline void write_batch(rt::Backend& backend, const rt::ModelInfo& model,
                        std::uint64_t input_offset = 0) {
  fixture_batch::inputs(backend.batch_inputs(), input_offset);
  if (model.classifies())
    fixture_batch::labels(backend.batch_labels(), model.classes);
  else
    fixture_batch::targets(backend.batch_targets());
}

// The last step's loss over the batch, as PyTorch reports it (the mean).
inline double mean_loss(rt::Backend& backend, const rt::ModelInfo& model) {
  double loss = 0;
  for (float l : backend.losses())
    loss += l;
  return loss / static_cast<double>(model.batch);
}

// How close each quantity must be: the loss relative to itself, a gradient's and a weight's
// tensor error (tensor_error.hpp). FP32's are the defaults. Where an optimizer's step can move a
// weight a whole step either way on a gradient within rounding of zero (Adam on bf16 gradients),
// up to `weight_outliers` of a tensor's weights (a fraction) may be further off than `weights`,
// each by at most `outlier_bound` (absolute).
struct Tolerances {
  double loss = 1e-5, gradients = 1e-4, weights = 1e-4;
  double weight_outliers = 0, outlier_bound = 0;
};

// The weights of one tensor against PyTorch's, under `tolerance`.
inline void check_weights(std::span<const float> ours, std::span<const double> theirs,
                          const Tolerances& tolerance) {
  if (tolerance.weight_outliers == 0) {
    CHECK(tensor_error(ours, theirs) <= tolerance.weights);
    return;
  }
  double scale = 0;
  for (double v : theirs)
    scale = std::max(scale, std::abs(v));
  std::size_t outliers = 0;
  double worst = 0;
  for (std::size_t i = 0; i < theirs.size(); ++i) {
    const double diff = std::abs(static_cast<double>(ours[i]) - theirs[i]);
    if (diff > tolerance.weights * scale) {
      ++outliers;
      worst = std::max(worst, diff);
    }
  }
  CAPTURE(outliers);
  CHECK(static_cast<double>(outliers) <=
        tolerance.weight_outliers * static_cast<double>(theirs.size()));
  CHECK(worst <= tolerance.outlier_bound);
}

// The fixture's initial parameters (init.<name>), as the parameter vector of `model`.
inline std::vector<float> initial_parameters(const rt::SafetensorsReader& file,
                                             const rt::ModelInfo& model) {
  std::vector<float> parameters(static_cast<std::size_t>(model.parameter_count));
  for (const rt::ParameterTensor& t : model.parameters) {
    const std::vector<double> init = values(file, "init." + t.name);
    REQUIRE(static_cast<std::int64_t>(init.size()) == t.elements());
    for (std::size_t i = 0; i < init.size(); ++i)
      parameters[static_cast<std::size_t>(t.offset) + i] = static_cast<float>(init[i]);
  }
  return parameters;
}

// The settings PyTorch's `optimizer` ran with (<optimizer>.lr, ...).
inline k::OptimizerSettings optimizer_settings(const rt::SafetensorsReader& file,
                                               const std::string& optimizer) {
  k::OptimizerSettings settings;
  settings.learning_rate = setting(file, optimizer + ".lr");
  settings.weight_decay = setting(file, optimizer + ".weight_decay");
  if (optimizer == "sgd_momentum")
    settings.momentum = setting(file, optimizer + ".momentum");
  if (optimizer == "adam" || optimizer == "adamw") {
    settings.beta1 = setting(file, optimizer + ".beta1");
    settings.beta2 = setting(file, optimizer + ".beta2");
    settings.epsilon = setting(file, optimizer + ".eps");
  }
  return settings;
}

// `backend` holds `model`'s step, freshly made; `fixture_name` names the fixture file
// (make_fixtures.py's model name, or make_mixed_fixtures.py's "<model>_mixed_bf16").
inline void check_against_pytorch(const std::string& fixture_name, const std::string& optimizer,
                                  const rt::ModelInfo& model, rt::Backend& backend,
                                  const Tolerances& tolerance = {}) {
  CAPTURE(fixture_name);
  CAPTURE(optimizer);
  const rt::SafetensorsReader file = fixture(fixture_name);
  REQUIRE(file.metadata().at("fixture_version") == "1");

  std::vector<float> parameters = initial_parameters(file, model);
  backend.write_state(rt::StateBuffer::parameters, parameters);
  const k::OptimizerSettings settings = optimizer_settings(file, optimizer);

  const std::vector<double> losses = values(file, optimizer + ".loss");
  std::vector<float> gradients(parameters.size());
  for (int step = 1; step <= 3; ++step) {
    CAPTURE(step);
    write_batch(backend, model);
    backend.train_step(k::optimizer_constants(model.optimizer, settings, step));
    const double expected = losses[static_cast<std::size_t>(step - 1)];
    CHECK(std::abs(mean_loss(backend, model) - expected) <= tolerance.loss * std::abs(expected));
    if (step == 1) {
      backend.read_state(rt::StateBuffer::gradients, gradients);
      for (const rt::ParameterTensor& t : model.parameters) {
        CAPTURE(t.name);
        const std::vector<double> expected = values(file, "grad1." + t.name);
        CHECK(tensor_error(std::span<const float>(gradients).subspan(t.offset, expected.size()),
                           std::span<const double>(expected)) <= tolerance.gradients);
      }
    }
  }
  backend.read_state(rt::StateBuffer::parameters, parameters);
  for (const rt::ParameterTensor& t : model.parameters) {
    CAPTURE(t.name);
    const std::vector<double> expected = values(file, optimizer + ".final." + t.name);
    check_weights(std::span<const float>(parameters).subspan(t.offset, expected.size()),
                  std::span<const double>(expected), tolerance);
  }
}

}  // namespace pytorch_fixture
