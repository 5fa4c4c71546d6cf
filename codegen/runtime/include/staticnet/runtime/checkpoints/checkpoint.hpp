#pragma once
// Training checkpoints: named tensors (weights, and optimizer state as tensors of their own, e.g.
// "optimizer.adam.m.fc.weight") plus the state needed to resume exactly where training stopped:
// step, epoch, the RNG's state and the position in the data order. A checkpoint is a plain
// safetensors file; the training state lives in its "__metadata__" under "staticnet." keys, so
// Python's safetensors and PyTorch open it like any other. Saves are atomic (atomic_file.hpp):
// a crash mid-save leaves the previous checkpoint as it was.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "staticnet/runtime/checkpoints/atomic_file.hpp"
#include "staticnet/runtime/checkpoints/safetensors_dtype.hpp"
#include "staticnet/runtime/checkpoints/safetensors_writer.hpp"

namespace staticnet::runtime {

// The version written in "staticnet.format_version"; loading rejects newer versions.
inline constexpr std::uint64_t checkpoint_format_version = 1;
// Every metadata key staticnet writes starts with this; callers' own keys must not.
inline constexpr std::string_view checkpoint_metadata_prefix = "staticnet.";

// Where the data order stands: the seed the current epoch's shuffle was drawn with, and how many
// samples of that epoch have been consumed.
struct DataOrderPosition {
  std::uint64_t epoch_seed = 0;
  std::uint64_t index_in_epoch = 0;
  bool operator==(const DataOrderPosition&) const = default;
};

struct TrainingState {
  std::uint64_t step = 0;
  std::uint64_t epoch = 0;
  // Opaque bytes the caller defines (a serialized std::mt19937_64, a u64 array, ...), stored
  // hex-encoded because metadata values must be UTF-8 strings.
  std::string rng_state;
  DataOrderPosition data_order;
  bool operator==(const TrainingState&) const = default;
};

struct CheckpointTensor {
  std::string name;
  Dtype dtype = Dtype::f32;
  std::vector<std::int64_t> shape;
  std::vector<std::byte> data;  // little-endian elements, as in the file
};

struct Checkpoint {
  std::vector<CheckpointTensor> tensors;  // in file order
  TrainingState state;
  // The caller's own metadata (keys outside "staticnet."), kept through save and load.
  std::map<std::string, std::string> extra_metadata;

  const CheckpointTensor* find(std::string_view name) const noexcept;
};

// The prefix of every optimizer-state tensor's name.
inline constexpr std::string_view optimizer_state_prefix = "optimizer.";
inline bool is_optimizer_state(std::string_view tensor_name) noexcept {
  return tensor_name.starts_with(optimizer_state_prefix);
}

// "optimizer.<optimizer>.<slot>.<parameter>", e.g. optimizer_state_name("adam", "m", "fc.weight").
std::string optimizer_state_name(std::string_view optimizer, std::string_view slot,
                                 std::string_view parameter);

// ---- saving -------------------------------------------------------------------------------
// From borrowed tensor data (no copy of the weights). Throws std::invalid_argument for a bad
// tensor or an extra metadata key with the "staticnet." prefix, IoError when writing fails.
void save_checkpoint(const std::filesystem::path& path,
                     std::span<const SafetensorsTensorRef> tensors, const TrainingState& state,
                     const std::map<std::string, std::string>& extra_metadata = {},
                     const AtomicWriteOptions& options = {});
void save_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint,
                     const AtomicWriteOptions& options = {});

// ---- loading ------------------------------------------------------------------------------
struct TensorSignature {
  std::string name;
  Dtype dtype = Dtype::f32;
  std::vector<std::int64_t> shape;
};

struct CheckpointExpectations {
  std::vector<TensorSignature> tensors;
  // Whether tensors the caller did not ask for are acceptable (e.g. optimizer state when only
  // the weights are wanted). They are loaded either way.
  bool allow_unexpected_tensors = false;
  // The program's model type ("cli::Net"). Where the file was written for another (its
  // "model_type" metadata), the mismatch's message names both first.
  std::string model_type;
};

// One way a checkpoint's tensor differs from what the caller expects.
struct TensorMismatch {
  enum class Kind { missing, unexpected, dtype, shape };
  Kind kind;
  std::string tensor;
  // "ckpt.st: tensor fc.weight: expected shape (10, 2048), found (10, 8192)"
  std::string line;
};

// Every way the checkpoint differs from what the caller expects, one line each.
class CheckpointMismatch : public std::runtime_error {
 public:
  // The message lists the first max_listed_mismatches lines; `whose` (other_model_note) follows
  // the first line where it is not empty.
  CheckpointMismatch(const std::string& source, std::vector<TensorMismatch> mismatches,
                     const std::string& whose = {});
  static constexpr std::size_t max_listed_mismatches = 12;
  const std::vector<TensorMismatch>& mismatches() const noexcept { return mismatches_; }
  // The mismatches' lines, in order.
  std::vector<std::string> problems() const;

 private:
  std::vector<TensorMismatch> mismatches_;
};

// "it was written for cli::Other (model other), and this program runs cli::Net", where the
// metadata's "model_type" names another type than `model_type`; else "".
std::string other_model_note(const std::map<std::string, std::string>& metadata,
                             std::string_view model_type);

// Empty when everything matches. Missing, unexpected, wrong-dtype and wrong-shape tensors, in
// the order of `expected` (unexpected ones last).
std::vector<TensorMismatch> checkpoint_mismatches(const std::string& source,
                                                  std::span<const TensorSignature> found,
                                                  const CheckpointExpectations& expected);

// Throws IoError, FormatError (malformed file, or missing/invalid "staticnet." metadata).
Checkpoint load_checkpoint(const std::filesystem::path& path);
// Also throws CheckpointMismatch, checked before any tensor data is copied.
Checkpoint load_checkpoint(const std::filesystem::path& path,
                           const CheckpointExpectations& expected);

// ---- the metadata encoding, for tools that inspect checkpoints ---------------------------
// The "staticnet." keys for `state` (format version included).
std::map<std::string, std::string> encode_training_state(const TrainingState& state);
// Reads them back; `source` names the file in FormatErrors (reported at byte 8, the header).
TrainingState decode_training_state(const std::map<std::string, std::string>& metadata,
                                    const std::string& source);

}  // namespace staticnet::runtime
