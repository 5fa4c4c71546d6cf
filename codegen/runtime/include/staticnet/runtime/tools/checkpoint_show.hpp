#pragma once
// `staticnet checkpoint show`: what a checkpoint holds (the tensors' bytes are mapped, never
// copied): every tensor's name, dtype, shape and size, the training state staticnet stored (step,
// epoch, data position, RNG state size) and the other metadata. A safetensors file written by
// someone else (no "staticnet." keys) is listed without a state. Every floating-point value is
// looked at too: a NaN or an infinity, which --resume, --init and the inference programs refuse,
// is found here, tensor by tensor.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"

namespace staticnet::runtime {

// The values of one floating-point tensor that are not finite, or would not be in F32 (an F64
// that rounds beyond the largest float): what the programs refuse.
struct NonFiniteCount {
  std::string tensor;
  std::int64_t nan = 0, positive_infinity = 0, negative_infinity = 0, beyond_f32 = 0;
  std::int64_t first = 0;  // the first one's element
};

struct CheckpointListing {
  std::string source;
  std::uint64_t file_bytes = 0;
  std::uint64_t tensor_bytes = 0;               // sum of the tensors' sizes
  std::vector<SafetensorsTensorInfo> tensors;   // in file order
  std::optional<TrainingState> state;           // absent: no "staticnet." keys at all
  std::map<std::string, std::string> metadata;  // keys outside "staticnet."
  std::uint64_t floating_values = 0;            // elements of F64, F32, F16 and BF16 tensors
  std::vector<NonFiniteCount> non_finite;       // in file order; empty when all are finite
};

// Throws IoError and FormatError (a malformed file, or "staticnet." keys that do not decode).
CheckpointListing inspect_checkpoint(const std::filesystem::path& path);
// The same from a file already parsed (the fuzz target's entry). Throws FormatError.
CheckpointListing list_checkpoint(const SafetensorsReader& reader);

// The report `checkpoint show` prints, e.g.
//   checkpoint: run/step-100.safetensors (1234 bytes, 4 tensors, 1096 bytes of tensor data)
//   tensors:
//     name          dtype  shape    bytes
//     fc.bias       F32    (10)     40
//     fc.weight     F32    (10, 4)  160
//   training state:
//     step: 100
//     epochs done: 2
//     data position: epoch seed 7, 128 samples into epoch 3
//     rng state: 16 bytes
//   values: all 70 floating-point values are finite
//   metadata:
//     model: mlp
// where a NaN or an infinity gives, instead of the "values" line,
//   values: NOT ALL FINITE (--resume, --init and the inference programs refuse this file)
//     fc.weight: 2 NaN, 1 +Inf (the first at element 17)
std::string format_checkpoint_listing(const CheckpointListing& listing);

}  // namespace staticnet::runtime
