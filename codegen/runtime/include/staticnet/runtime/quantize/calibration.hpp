#pragma once
// Post-training quantization as TensorFlow Lite's converter does it (its MLIR quantizer, with a
// representative data set): from each int8 tensor's range over the calibration samples its scale
// and zero point, and from the folded float weights their int8 values, per-channel scales and
// int32 biases.
//
//   activations  asymmetric: [min, max] widened to hold 0, scale = (max − min) / 255 in float32,
//                zero point = round(−128 − min / scale) (half away from zero) in [−128, 127];
//                an all-zero range gets scale 1, zero point −128
//   weights      symmetric per output channel, narrow range: scale = max |w| / 127, zero point 0,
//                value = round(w / scale) half away from zero, in [−127, 127]
//   biases       int32, scale = input scale · weight scale: round(b / scale)
// A weight scale is computed in double and stored as float32, as the converter stores it; what
// is computed from it at conversion (the weights' and biases' integers) uses the double, what a
// kernel derives from it at run time (multipliers, activation ranges) the float32.
// tests/int8/ checks each rule against TensorFlow Lite's converter on the same weights and
// calibration samples (tests/reference/make_int8_quantizer_fixtures.py). One difference is known
// and not reproduced: the converter gives a tensor an Add reads from a convolution without an
// activation the Add's own maximum (a residual block's second convolution), where this takes the
// tensor's own range; `NAME_quantize --ranges` takes the converter's ranges where that matters.
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

#include "staticnet/runtime/quantize/quantizer_model.hpp"

namespace staticnet::runtime::quantize {

// A tensor's values over the calibration set.
struct Range {
  float min = std::numeric_limits<float>::infinity();
  float max = -std::numeric_limits<float>::infinity();
  void add(std::span<const float> values);
};

// An int8 tensor's quantization, its scale in double as computed.
struct TensorScale {
  double scale = 1.0;
  std::int32_t zero_point = 0;
  q8::TensorQuantization stored() const { return {static_cast<float>(scale), zero_point}; }
};

TensorScale activation_scale(const Range& range);

// A product's weights: channels × per_channel values, PyTorch's layout (output channel first).
struct QuantizedWeights {
  std::vector<double> scales;  // per output channel
  std::vector<std::int8_t> values;
};
QuantizedWeights quantize_weights(std::span<const float> weights, std::int64_t channels);

// round(bias / (input scale · weight scale)); throws QuantizationError when it does not fit
// int32 (a weight scale that small means a channel of near-zero weights with a large bias).
std::int32_t quantize_bias(float bias, double input_scale, double weight_scale);

// A range or a weight the scheme cannot take (a tensor that is never finite, a bias beyond int32).
class QuantizationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the generated NAME::mcu::quantization_from() asks, answered from the tensors' scales.
class Source {
 public:
  Source(const QuantizerModel& model, std::vector<TensorScale> tensors);

  q8::TensorQuantization input() const;
  q8::TensorQuantization output() const;
  q8::ProductQuantization product(std::int64_t layer) const;
  q8::AddQuantization sum(std::int64_t layer) const;
  q8::MeanQuantization mean(std::int64_t layer, int plane) const;
  q8::Requantization activation(std::int64_t layer) const;

  const TensorScale& tensor(int index) const;

 private:
  const QuantizedOp& op(std::int64_t layer, OpKind kind) const;
  const QuantizerModel& model_;
  std::vector<TensorScale> tensors_;
};

}  // namespace staticnet::runtime::quantize
