// How a checkpoint keeps the input normalisation (--scale, --mean, --std), and which one a run
// applies: given, else the checkpoint's, else the data's default.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "staticnet/runtime/checkpoints/input_normalization.hpp"
#include "staticnet/runtime/error.hpp"

namespace {

using namespace staticnet::runtime;
using Metadata = std::map<std::string, std::string>;

}  // namespace

TEST_CASE("input normalization: only what was given is kept, in texts that read back exactly") {
  CHECK(normalization_metadata({}).empty());
  const InputNormalization n{0.1f, {0.4914f, 0.4822f, 0.4465f}, {0.247f}, {}};
  const Metadata metadata = normalization_metadata(n);
  CHECK(metadata == Metadata{{"input_scale", "0.1"},
                             {"input_mean", "0.4914,0.4822,0.4465"},
                             {"input_std", "0.247"}});
  CHECK(saved_normalization(metadata, "run.safetensors") == n);
  CHECK(saved_normalization({{"model", "x"}}, "weights.safetensors") == InputNormalization{});
}

TEST_CASE("input normalization: an entry that does not read names the file and the entry") {
  const std::vector<std::pair<std::string, std::string>> cases{{"input_scale", "0.5,0.25"},
                                                               {"input_mean", "0.5,,0.25"},
                                                               {"input_std", "nan"},
                                                               {"input_scale", ""}};
  for (const auto& entry : cases) {
    const std::string& key = entry.first;
    const std::string& value = entry.second;
    CAPTURE(key);
    CAPTURE(value);
    try {
      saved_normalization({{key, value}}, "run.safetensors");
      FAIL("read");
    } catch (const FormatError& e) {
      const std::string message = e.what();
      CHECK(message.starts_with("run.safetensors: "));
      CHECK(message.find("'" + key + "'") != std::string::npos);
    }
  }
}

TEST_CASE("input normalization: given wins and says what it replaced, else the checkpoint's") {
  const InputNormalization saved{0.0625f, {0.5f}, {}, {}};
  std::vector<std::string> notes;
  const InputNormalization none = resolve_normalization({}, saved, notes);
  CHECK(none == saved);
  CHECK(notes == std::vector<std::string>{"input scale 0.0625 from the checkpoint",
                                          "input mean 0.5 from the checkpoint"});
  notes.clear();
  const InputNormalization given{0.5f, {0.5f}, {2.0f}, {}};
  CHECK(resolve_normalization(given, saved, notes) == given);
  CHECK(notes == std::vector<std::string>{"--scale 0.5 replaces the checkpoint's 0.0625"});
  notes.clear();
  CHECK(resolve_normalization(given, {}, notes) == given);  // nothing saved: nothing to say
  CHECK(notes.empty());
}

TEST_CASE(
    "input normalization: the training data's element type, and a note where defaults differ") {
  const InputNormalization trained_on_pixels{{}, {}, {}, ElementType::u8};
  const Metadata metadata = normalization_metadata(trained_on_pixels);
  CHECK(metadata == Metadata{{"input_element_type", "u8"}});
  CHECK(saved_normalization(metadata, "run.safetensors") == trained_on_pixels);
  CHECK_THROWS_AS(saved_normalization({{"input_element_type", "u9"}}, "run.safetensors"),
                  FormatError);
  std::vector<std::string> notes;
  CHECK(resolve_normalization({}, trained_on_pixels, notes).element_type == ElementType::u8);
  CHECK(notes.empty());
  CHECK(default_scale_note(trained_on_pixels, ElementType::f32) ==
        "the model was trained on u8 data, scaled by its default 0.003921569; this data is f32, "
        "scaled by 1: give --scale 0.003921569 if its values are on the training data's scale");
  CHECK_FALSE(default_scale_note(trained_on_pixels, ElementType::u8));
  CHECK_FALSE(default_scale_note({{}, {}, {}, ElementType::f64}, ElementType::f32));   // both 1
  CHECK_FALSE(default_scale_note({0.5f, {}, {}, ElementType::u8}, ElementType::f32));  // set
}

TEST_CASE("input normalization: the default scale follows the data's element type") {
  CHECK(normalization_for({}, ElementType::u8).scale == 1.0f / 255.0f);
  CHECK(normalization_for({}, ElementType::f32).scale == 1.0f);
  CHECK(normalization_for({0.5f, {}, {}, {}}, ElementType::u8).scale == 0.5f);
  CHECK(describe({}, ElementType::u8) == "scale 0.003921569 (1/255, for u8 data)");
  CHECK(describe({}, ElementType::f32) == "scale 1");
  CHECK(describe({0.5f, {0.1f, 0.2f}, {3.0f}, {}}, ElementType::f32) ==
        "scale 0.5, mean 0.1,0.2, std 3");
}

TEST_CASE("input normalization: a mean or std per channel must have one value per channel") {
  const std::vector<std::int64_t> rgb{3, 32, 32};
  const InputNormalization given{{}, {0.5f, 0.25f}, {}, {}};
  CHECK_THROWS_WITH_AS(require_channel_counts(given, given, "run.safetensors", rgb),
                       "--mean has 2 values, but the input (3, 32, 32) has 3 channels (its first "
                       "axis): give 1 value, or one per channel",
                       UsageError);
  // Taken from the file: the file and its entry are named, and the option that replaces it.
  const InputNormalization kept{{}, {}, {0.5f, 0.25f}, {}};
  CHECK_THROWS_WITH_AS(require_channel_counts(kept, {}, "run.safetensors", rgb),
                       "run.safetensors: expected 1 or 3 values in the metadata entry 'input_std' "
                       "(the input (3, 32, 32) has 3 channels (its first axis)), found 2 (give "
                       "--std to replace them)",
                       FormatError);
  CHECK_NOTHROW(require_channel_counts({{}, {0.5f}, {0.1f, 0.2f, 0.3f}, {}}, {}, "x", rgb));
  CHECK_NOTHROW(require_channel_counts({}, {}, "x", rgb));
}
