// Checkpoints: weights, optimizer state and training state survive save and load exactly, the
// file stays plain safetensors, and loading reports every way a checkpoint differs from the model.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/checkpoints/safetensors.hpp"
#include "staticnet/runtime/error.hpp"
#include "test_checkpoint_support.hpp"

namespace staticnet::runtime::test {
namespace {

Checkpoint training_checkpoint(const std::mt19937_64& rng) {
  Checkpoint checkpoint;
  checkpoint.tensors.push_back({"fc.weight",
                                Dtype::f32,
                                {2, 3},
                                bytes_of(std::vector<float>{1, -2, 3.5f, 0, 1e-30f, -0.0f})});
  checkpoint.tensors.push_back(
      {"fc.bias", Dtype::f32, {2}, bytes_of(std::vector<float>{0.5f, -0.5f})});
  checkpoint.tensors.push_back({optimizer_state_name("adam", "m", "fc.weight"),
                                Dtype::f32,
                                {2, 3},
                                bytes_of(std::vector<float>(6, 0.25f))});
  checkpoint.tensors.push_back({optimizer_state_name("adam", "v", "fc.weight"),
                                Dtype::f64,
                                {2, 3},
                                bytes_of(std::vector<double>(6, 1e-8))});
  checkpoint.tensors.push_back(
      {"optimizer.adam.step", Dtype::i64, {}, bytes_of(std::vector<std::int64_t>{300})});
  std::ostringstream rng_text;
  rng_text << rng;
  checkpoint.state = {300, 4, rng_text.str(), {0xDEADBEEFCAFEF00Dull, 128}};
  checkpoint.extra_metadata = {{"model", "mlp"}, {"format", "pt"}};
  return checkpoint;
}

TEST_CASE("checkpoint: save and load round-trip everything exactly") {
  TempDir dir;
  const auto path = dir / "checkpoint.safetensors";
  std::mt19937_64 rng(42);
  rng.discard(1000);
  const auto saved = training_checkpoint(rng);
  save_checkpoint(path, saved);

  const auto loaded = load_checkpoint(path);
  CHECK(loaded.state == saved.state);
  CHECK(loaded.extra_metadata == saved.extra_metadata);
  REQUIRE(loaded.tensors.size() == saved.tensors.size());
  for (const auto& want : saved.tensors) {
    CAPTURE(want.name);
    const auto* have = loaded.find(want.name);
    REQUIRE(have != nullptr);
    CHECK(have->dtype == want.dtype);
    CHECK(have->shape == want.shape);
    CHECK(have->data == want.data);
  }

  // The restored generator continues the sequence where the saved one was.
  std::mt19937_64 restored;
  std::istringstream(loaded.state.rng_state) >> restored;
  for (int i = 0; i < 100; ++i)
    CHECK(restored() == rng());
}

TEST_CASE("checkpoint: opaque binary RNG state, extreme counters") {
  TempDir dir;
  const auto path = dir / "c.st";
  TrainingState state;
  state.step = ~std::uint64_t{0};
  state.epoch = 0;
  state.rng_state = std::string("\0\x01\x7f\x80\xff\"\\", 7);
  state.data_order = {~std::uint64_t{0}, ~std::uint64_t{0} - 1};
  save_checkpoint(path, {}, state);
  CHECK(load_checkpoint(path).state == state);
}

TEST_CASE("checkpoint: the file is plain safetensors with staticnet. metadata") {
  TempDir dir;
  const auto path = dir / "c.st";
  save_checkpoint(path, training_checkpoint(std::mt19937_64(1)));
  const auto reader = SafetensorsReader::open(path);
  const auto& metadata = reader.metadata();
  CHECK(metadata.at("staticnet.format_version") == "1");
  CHECK(metadata.at("staticnet.step") == "300");
  CHECK(metadata.at("staticnet.epoch") == "4");
  CHECK(metadata.at("staticnet.data_order.epoch_seed") == std::to_string(0xDEADBEEFCAFEF00Dull));
  CHECK(metadata.at("staticnet.data_order.index_in_epoch") == "128");
  CHECK(metadata.at("model") == "mlp");
  CHECK(reader.find("optimizer.adam.m.fc.weight") != nullptr);
  CHECK(encode_training_state(load_checkpoint(path).state).size() == 6);
}

TEST_CASE("checkpoint: caller metadata must not use the staticnet. prefix") {
  TempDir dir;
  Checkpoint checkpoint;
  checkpoint.extra_metadata = {{"staticnet.step", "5"}};
  CHECK_THROWS_AS(save_checkpoint(dir / "c.st", checkpoint), std::invalid_argument);
  CHECK_FALSE(fs::exists(dir / "c.st"));
}

TEST_CASE("checkpoint: every mismatch with the model is reported") {
  TempDir dir;
  const auto path = dir / "checkpoint.st";
  Checkpoint checkpoint;
  checkpoint.tensors.push_back(
      {"fc.weight", Dtype::f32, {10, 8192}, std::vector<std::byte>(10 * 8192 * 4)});
  checkpoint.tensors.push_back({"fc.bias", Dtype::f16, {10}, std::vector<std::byte>(20)});
  checkpoint.tensors.push_back({"stray", Dtype::u8, {3}, std::vector<std::byte>(3)});
  save_checkpoint(path, checkpoint);

  CheckpointExpectations expected;
  expected.tensors = {{"fc.weight", Dtype::f32, {10, 2048}},
                      {"fc.bias", Dtype::f32, {10}},
                      {"out.weight", Dtype::f32, {2, 10}}};
  const std::string file = path.string();
  try {
    load_checkpoint(path, expected);
    FAIL("no CheckpointMismatch");
  } catch (const CheckpointMismatch& error) {
    const std::vector<std::string> problems{
        file + ": tensor fc.weight: expected shape (10, 2048), found (10, 8192)",
        file + ": tensor fc.bias: expected dtype F32, found F16",
        file + ": tensor out.weight: expected F32 (2, 10), found no such tensor",
        file + ": tensor stray: expected no such tensor, found U8 (3,)",
    };
    CHECK(error.problems() == problems);
    using Kind = TensorMismatch::Kind;
    const std::vector<std::pair<Kind, std::string>> kinds{{Kind::shape, "fc.weight"},
                                                          {Kind::dtype, "fc.bias"},
                                                          {Kind::missing, "out.weight"},
                                                          {Kind::unexpected, "stray"}};
    std::vector<std::pair<Kind, std::string>> found_kinds;
    for (const TensorMismatch& m : error.mismatches())
      found_kinds.emplace_back(m.kind, m.tensor);
    CHECK(found_kinds == kinds);
    const std::string message = error.what();
    CHECK(message.starts_with(file +
                              ": the checkpoint does not match what was expected (4 problems)"));
    CHECK(message.find("\n  " + problems[0]) != std::string::npos);
  }

  expected.tensors = {{"fc.weight", Dtype::f32, {10, 8192}}, {"fc.bias", Dtype::f16, {10}}};
  CHECK_THROWS_AS(load_checkpoint(path, expected), CheckpointMismatch);  // "stray"
  expected.allow_unexpected_tensors = true;
  const auto loaded = load_checkpoint(path, expected);
  CHECK(loaded.tensors.size() == 3);
}

// Another model's checkpoint: every tensor differs, so the message says whose file it is first and
// lists the first twelve problems, then how many more; problems() keeps them all.
TEST_CASE("checkpoint: another model's file is named as such, and its list is cut short") {
  TempDir dir;
  const auto path = dir / "other.st";
  Checkpoint checkpoint;
  for (int i = 0; i < 20; ++i)
    checkpoint.tensors.push_back(
        {"layer" + std::to_string(i) + ".weight", Dtype::f32, {2}, std::vector<std::byte>(8)});
  checkpoint.extra_metadata = {{"model", "mlp"}, {"model_type", "trial::MLP"}};
  save_checkpoint(path, checkpoint);

  CheckpointExpectations expected;
  expected.tensors = {{"conv.weight", Dtype::f32, {4, 1, 3, 3}}};
  expected.model_type = "trial::ResBN";
  const std::string file = path.string();
  try {
    load_checkpoint(path, expected);
    FAIL("no CheckpointMismatch");
  } catch (const CheckpointMismatch& error) {
    CHECK(error.problems().size() == 21);  // conv.weight missing, 20 unexpected
    const std::string message = error.what();
    const std::string first_line = message.substr(0, message.find('\n'));
    CHECK(first_line == file +
                            ": the checkpoint does not match what was expected (21 problems); it "
                            "was written for trial::MLP (model mlp), and this program runs "
                            "trial::ResBN");
    CHECK(std::ranges::count(message, '\n') == 13);  // 12 problems and the count of the rest
    CHECK(message.ends_with("\n  " + error.problems()[11] + "\n  ... and 9 more"));
  }
  // The same type, or a file that names none (PyTorch's): no note.
  CHECK(other_model_note({{"model_type", "trial::ResBN"}}, "trial::ResBN").empty());
  CHECK(other_model_note({}, "trial::ResBN").empty());
  CHECK(other_model_note({{"model_type", "a::B"}}, "").empty());
  CHECK(other_model_note({{"model_type", "a::B"}}, "c::D") ==
        "it was written for a::B, and this program runs c::D");
}

TEST_CASE("checkpoint: files without valid staticnet metadata are FormatErrors") {
  TempDir dir;
  const auto path = dir / "c.st";
  const auto error_for = [&](std::map<std::string, std::string> metadata) -> std::string {
    write_safetensors(path, {}, metadata);
    try {
      load_checkpoint(path);
    } catch (const FormatError& error) {
      CHECK(error.where().byte_offset == 8);
      return error.what();
    }
    return "no error";
  };
  auto valid = encode_training_state({});
  const std::string prefix = path.string() + ": byte 8: expected ";

  CHECK(error_for({{"format", "pt"}}) ==
        prefix + "metadata key \"staticnet.format_version\" (a staticnet checkpoint), found none");
  auto newer = valid;
  newer["staticnet.format_version"] = "2";
  CHECK(error_for(newer) ==
        prefix + "checkpoint format version 1 to 1 (this staticnet reads no newer ones), found 2");
  auto bad_step = valid;
  bad_step["staticnet.step"] = "12x";
  CHECK(error_for(bad_step) ==
        prefix + "metadata \"staticnet.step\" to be a decimal integer below 2^64, found \"12x\"");
  auto overflow = valid;
  overflow["staticnet.epoch"] = "18446744073709551616";
  CHECK(error_for(overflow).find("\"staticnet.epoch\" to be a decimal integer") !=
        std::string::npos);
  auto negative = valid;
  negative["staticnet.data_order.index_in_epoch"] = "-1";
  CHECK(error_for(negative).find("index_in_epoch") != std::string::npos);
  auto odd_hex = valid;
  odd_hex["staticnet.rng_state"] = "abc";
  CHECK(error_for(odd_hex).find("an even number of lowercase hex digits") != std::string::npos);
  auto upper_hex = valid;
  upper_hex["staticnet.rng_state"] = "AB";
  CHECK(error_for(upper_hex).find("hex digits") != std::string::npos);
  auto missing_seed = valid;
  missing_seed.erase("staticnet.data_order.epoch_seed");
  CHECK(error_for(missing_seed).find("staticnet.data_order.epoch_seed") != std::string::npos);
}

TEST_CASE("checkpoint: load failures of the file itself") {
  TempDir dir;
  CHECK_THROWS_AS(load_checkpoint(dir / "absent.st"), IoError);
  write_bytes(dir / "short.st", bytes_of(std::string_view("abc")));
  CHECK_THROWS_AS(load_checkpoint(dir / "short.st"), FormatError);
  write_bytes(dir / "empty.st", {});
  CHECK_THROWS_AS(load_checkpoint(dir / "empty.st"), FormatError);
}

}  // namespace
}  // namespace staticnet::runtime::test
