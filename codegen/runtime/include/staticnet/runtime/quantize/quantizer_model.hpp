#pragma once
// What a generated NAME_quantize program knows about its model (NAME_quantize.cpp fills it in):
// the float tensors it reads from a trainer's checkpoint, the int8 tensors of the plan, and the
// int8 kernel calls (ops) between them, as the mcu backend renders them (NAME_mcu.cpp); and the
// generated functions that run the model in float and in int8.
//
// The float forward pass runs the same fused groups as the int8 one, with each int8 tensor a float
// tensor of its own (no arena: it runs on the host), so calibration sees every tensor the
// microcontroller quantizes, a convolution's output before the pool the plan fused after it
// included, which no FP32 backend keeps.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "staticnet/kernels/int8/quantize.hpp"
#include "staticnet/runtime/parameter_tensor.hpp"

namespace staticnet::runtime::quantize {

namespace q8 = staticnet::kernels::int8;

// One int8 tensor of the plan: the model's input, or an op's output.
struct QuantizedTensor {
  std::string what;  // "(1, 16, 8, 8) output of 0 Conv2d, 1 BatchNorm2d, 2 ReLU"
  std::int64_t elements = 0;
  int same_as = -1;  // a pool's output: the tensor whose quantization it keeps (TensorFlow Lite's
                     // pools do not rescale), else -1
};

enum class OpKind : std::uint8_t { product, pool, sum, mean, activation };

// One int8 kernel call: what NAME::mcu::quantization_from() asks of its source, by layer.
struct QuantizedOp {
  OpKind kind = OpKind::product;
  std::int64_t layer = 0;  // the layer the generated Quantization member is asked for by
  int input = -1, input2 = -1, output = -1;                    // tensors (input2: a sum's second)
  q8::FusedActivation activation = q8::FusedActivation::none;  // fused after a product or sum
  int product = -1;                                            // products[] of a product op
  std::int64_t plane = 0;                                      // a mean's positions per channel
};

// A convolution or Linear: where its folded float weights and bias are, and where its int8
// weights and channel numbers go (NAME_model.h's quantized_tensors).
struct QuantizedProduct {
  std::string name;                  // its layer's module number, "0"
  std::int64_t weights_at = 0;       // float offset in the parameters, after folding
  std::int64_t weight_elements = 0;  // channels × weights per channel
  std::int64_t bias_at = -1;         // float offset of the bias it adds (a folded BatchNorm's
                                     // shift, or its own), or -1 for none
  std::int64_t channels = 0;         // output channels
  std::int64_t int8_weights_at = 0;  // element offset in the int8 weights (flash)
  std::int64_t numbers_at = 0;       // element offset of its channel numbers (bias, multiplier,
                                     // shift: `channels` each)
};

struct QuantizerModel {
  std::string name;        // staticnet_model(NAME ...)
  std::string model_type;  // as written in CMake
  std::string setup_type;
  std::vector<std::int64_t> sample_shape;  // one input sample
  std::vector<std::int64_t> output_shape;  // one sample's output

  // The checkpoint's float tensors (PyTorch's state-dict names), at element offsets of the
  // parameters and of the running statistics.
  std::vector<ParameterTensor> parameters, statistics;
  std::int64_t parameter_count = 0, statistic_count = 0;

  std::vector<QuantizedTensor> tensors;  // tensors[input] is the model's input
  std::vector<QuantizedOp> ops;          // in execution order
  std::vector<QuantizedProduct> products;
  int input = 0, output = 0;  // tensors

  // The int8 model's sizes (NAME_mcu.hpp's constants).
  std::int64_t weight_count = 0, channel_number_count = 0;
  std::int64_t arena_bytes = 0, input_offset = 0, output_offset = 0, flash_bytes = 0;
};

// What a Source answers NAME::mcu::quantization_from() with (calibration.hpp).
class Source;

// The generated functions, each over the generated types the runtime cannot name.
struct QuantizerProgram {
  // Folds every BatchNorm into the product before it, in the float parameters, once.
  std::function<void(float* parameters, const float* statistics)> fold;
  // One float forward pass of one sample: tensors[model.input] holds it; every other tensor is
  // written.
  std::function<void(const float* parameters, float* const* tensors)> forward;
  // Fills the generated Quantization from `source`, keeps it for invoke(), and returns its
  // members, in declaration order, as C++ initializers (model_source.hpp).
  std::function<std::vector<std::string>(const Source& source)> set_quantization;
  // The int8 forward pass (NAME::mcu::invoke) over `arena`, with the kept Quantization.
  std::function<void(const std::int8_t* weights, const std::int32_t* channel_numbers,
                     std::uint8_t* arena)>
      invoke;
};

}  // namespace staticnet::runtime::quantize
