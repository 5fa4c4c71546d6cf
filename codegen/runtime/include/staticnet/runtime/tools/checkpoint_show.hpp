#pragma once
// `staticnet checkpoint show`: what a checkpoint holds, read from its header only (the tensors'
// bytes are mapped, never copied): every tensor's name, dtype, shape and size, the training
// state staticnet stored (step, epoch, data position, RNG state size) and the other metadata.
// A safetensors file written by someone else (no "staticnet." keys) is listed without a state.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"

namespace staticnet::runtime {

struct CheckpointListing {
  std::string source;
  std::uint64_t file_bytes = 0;
  std::uint64_t tensor_bytes = 0;               // sum of the tensors' sizes
  std::vector<SafetensorsTensorInfo> tensors;   // in file order
  std::optional<TrainingState> state;           // absent: no "staticnet." keys at all
  std::map<std::string, std::string> metadata;  // keys outside "staticnet."
};

// Throws IoError and FormatError (a malformed file, or "staticnet." keys that do not decode).
CheckpointListing inspect_checkpoint(const std::filesystem::path& path);

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
//   metadata:
//     model: mlp
std::string format_checkpoint_listing(const CheckpointListing& listing);

}  // namespace staticnet::runtime
