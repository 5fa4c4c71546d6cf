// The training state's encoding in safetensors "__metadata__" (string -> string).
#include <fmt/format.h>

#include <charconv>
#include <string>

#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/error.hpp"

namespace staticnet::runtime {
namespace {

constexpr std::uint64_t header_offset = 8;  // metadata errors point at the JSON header

const std::string key_format_version = "staticnet.format_version";
const std::string key_step = "staticnet.step";
const std::string key_epoch = "staticnet.epoch";
const std::string key_rng_state = "staticnet.rng_state";
const std::string key_epoch_seed = "staticnet.data_order.epoch_seed";
const std::string key_index_in_epoch = "staticnet.data_order.index_in_epoch";

[[noreturn]] void fail(const std::string& source, std::string expected, std::string found) {
  throw FormatError(Location{source, header_offset, {}, {}}, std::move(expected), std::move(found));
}

const std::string& required(const std::map<std::string, std::string>& metadata,
                            const std::string& key, const std::string& source) {
  const auto it = metadata.find(key);
  if (it == metadata.end()) {
    fail(source, "metadata key \"" + key + "\" (a staticnet checkpoint)", "none");
  }
  return it->second;
}

std::uint64_t decode_u64(const std::map<std::string, std::string>& metadata, const std::string& key,
                         const std::string& source) {
  const std::string& text = required(metadata, key, source);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    fail(source, "metadata \"" + key + "\" to be a decimal integer below 2^64",
         fmt::format("\"{}\"", text.substr(0, 40)));
  }
  return value;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

std::string encode_hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string text;
  text.reserve(bytes.size() * 2);
  for (char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    text += digits[byte >> 4];
    text += digits[byte & 0x0F];
  }
  return text;
}

std::string decode_hex(const std::string& text, const std::string& source) {
  std::string bytes;
  bytes.reserve(text.size() / 2);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int high = hex_digit(text[i]);
    const int low = i + 1 < text.size() ? hex_digit(text[i + 1]) : -1;
    if (high < 0 || low < 0) {
      fail(source,
           "metadata \"" + key_rng_state + "\" to be an even number of lowercase hex digits",
           "a bad digit pair at character " + std::to_string(i));
    }
    bytes += static_cast<char>(high * 16 + low);
  }
  return bytes;
}

}  // namespace

std::map<std::string, std::string> encode_training_state(const TrainingState& state) {
  return {
      {key_format_version, std::to_string(checkpoint_format_version)},
      {key_step, std::to_string(state.step)},
      {key_epoch, std::to_string(state.epoch)},
      {key_rng_state, encode_hex(state.rng_state)},
      {key_epoch_seed, std::to_string(state.data_order.epoch_seed)},
      {key_index_in_epoch, std::to_string(state.data_order.index_in_epoch)},
  };
}

TrainingState decode_training_state(const std::map<std::string, std::string>& metadata,
                                    const std::string& source) {
  const auto version = decode_u64(metadata, key_format_version, source);
  if (version == 0 || version > checkpoint_format_version) {
    fail(source,
         "checkpoint format version 1 to " + std::to_string(checkpoint_format_version) +
             " (this staticnet reads no newer ones)",
         std::to_string(version));
  }
  TrainingState state;
  state.step = decode_u64(metadata, key_step, source);
  state.epoch = decode_u64(metadata, key_epoch, source);
  state.rng_state = decode_hex(required(metadata, key_rng_state, source), source);
  state.data_order.epoch_seed = decode_u64(metadata, key_epoch_seed, source);
  state.data_order.index_in_epoch = decode_u64(metadata, key_index_in_epoch, source);
  return state;
}

}  // namespace staticnet::runtime
