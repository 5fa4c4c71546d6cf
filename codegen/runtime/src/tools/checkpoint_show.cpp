#include "staticnet/runtime/tools/checkpoint_show.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <span>
#include <utility>

#include "staticnet/runtime/validation.hpp"

namespace staticnet::runtime {
namespace {

bool is_staticnet_key(const std::string& key) {
  return key.starts_with(checkpoint_metadata_prefix);
}

// The NaNs, infinities and F64s beyond F32's range of one tensor, or none.
std::optional<NonFiniteCount> count_non_finite(const SafetensorsReader& reader,
                                               const SafetensorsTensorInfo& tensor) {
  const std::span<const std::byte> bytes = reader.data(tensor);
  const std::size_t size = dtype_size(tensor.dtype);
  NonFiniteCount count{tensor.name, 0, 0, 0, 0, -1};
  for (std::size_t offset = 0; offset + size <= bytes.size(); offset += size) {
    const std::optional<float> value = float_element(tensor.dtype, bytes.data() + offset);
    if (value && std::isfinite(*value))
      continue;
    if (count.first < 0)
      count.first = static_cast<std::int64_t>(offset / size);
    (!value               ? count.beyond_f32
     : std::isnan(*value) ? count.nan
     : *value > 0         ? count.positive_infinity
                          : count.negative_infinity) += 1;
  }
  if (count.first < 0)
    return std::nullopt;
  return count;
}

// "2 NaN, 1 +Inf (the first at element 17)"
std::string describe(const NonFiniteCount& c) {
  std::string text;
  for (const auto& [n, name] :
       {std::pair{c.nan, "NaN"}, std::pair{c.positive_infinity, "+Inf"},
        std::pair{c.negative_infinity, "-Inf"}, std::pair{c.beyond_f32, "F64 beyond F32's range"}})
    if (n > 0)
      text += (text.empty() ? "" : ", ") + std::to_string(n) + " " + name;
  return text + " (the first at element " + std::to_string(c.first) + ")";
}

std::string pad(std::string text, std::size_t width) {
  if (text.size() < width)
    text.append(width - text.size(), ' ');
  return text;
}

}  // namespace

CheckpointListing inspect_checkpoint(const std::filesystem::path& path) {
  return list_checkpoint(SafetensorsReader::open(path));
}

CheckpointListing list_checkpoint(const SafetensorsReader& reader) {
  CheckpointListing listing;
  listing.source = reader.source();
  listing.tensors = reader.tensors();
  for (const auto& tensor : listing.tensors) {
    listing.tensor_bytes += tensor.byte_size();
    if (!is_floating(tensor.dtype))
      continue;
    listing.floating_values += tensor.element_count();
    if (auto count = count_non_finite(reader, tensor))
      listing.non_finite.push_back(std::move(*count));
  }
  listing.file_bytes = reader.data_buffer_offset() + listing.tensor_bytes;

  bool has_state = false;
  for (const auto& [key, value] : reader.metadata()) {
    if (is_staticnet_key(key))
      has_state = true;
    else
      listing.metadata.emplace(key, value);
  }
  if (has_state)
    listing.state = decode_training_state(reader.metadata(), listing.source);
  return listing;
}

std::string format_checkpoint_listing(const CheckpointListing& listing) {
  std::string text = "checkpoint: " + listing.source + " (" + std::to_string(listing.file_bytes) +
                     " bytes, " + std::to_string(listing.tensors.size()) +
                     (listing.tensors.size() == 1 ? " tensor, " : " tensors, ") +
                     std::to_string(listing.tensor_bytes) + " bytes of tensor data)\n";

  // The tensor table, columns as wide as their widest cell.
  std::vector<std::array<std::string, 4>> rows;
  rows.push_back({"name", "dtype", "shape", "bytes"});
  for (const auto& t : listing.tensors) {
    rows.push_back({t.name, std::string(dtype_name(t.dtype)), shape_to_string(t.shape),
                    std::to_string(t.byte_size())});
  }
  std::array<std::size_t, 4> widths{};
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c)
      widths[c] = std::max(widths[c], row[c].size());
  }
  text += "tensors:\n";
  for (const auto& row : rows) {
    text += "  " + pad(row[0], widths[0]) + "  " + pad(row[1], widths[1]) + "  " +
            pad(row[2], widths[2]) + "  " + row[3] + "\n";
  }

  if (listing.state) {
    const TrainingState& s = *listing.state;
    text += "training state:\n";
    // The trainers count epochs from 1 ("epoch 3/10"); `epoch` is how many are done.
    text += "  step: " + std::to_string(s.step) + "\n";
    text += "  epochs done: " + std::to_string(s.epoch) + "\n";
    text += "  data position: epoch seed " + std::to_string(s.data_order.epoch_seed) + ", " +
            std::to_string(s.data_order.index_in_epoch) + " samples into epoch " +
            std::to_string(s.epoch + 1) + "\n";
    text += "  rng state: " + std::to_string(s.rng_state.size()) + " bytes\n";
  } else {
    text += "training state: none (no \"" + std::string(checkpoint_metadata_prefix) +
            "\" metadata; not written by staticnet)\n";
  }

  if (listing.non_finite.empty()) {
    text += "values: all " + std::to_string(listing.floating_values) +
            " floating-point values are finite\n";
  } else {
    // --init and the inference programs read the weights alone: the optimizer's state may hold
    // what they never look at.
    const bool weights_finite = std::ranges::all_of(
        listing.non_finite, [](const NonFiniteCount& c) { return is_optimizer_state(c.tensor); });
    text += weights_finite ? "values: NOT ALL FINITE (--resume refuses this file; its weights are "
                             "finite, and --init and the inference programs take them)\n"
                           : "values: NOT ALL FINITE (--resume refuses this file, and --init and "
                             "the inference programs do where these are the model's tensors)\n";
    for (const NonFiniteCount& c : listing.non_finite)
      text += "  " + c.tensor + ": " + describe(c) + "\n";
  }

  if (!listing.metadata.empty()) {
    text += "metadata:\n";
    for (const auto& [key, value] : listing.metadata)
      text += "  " + key + ": " + value + "\n";
  }
  return text;
}

}  // namespace staticnet::runtime
