// inspect_checkpoint and format_checkpoint_listing, the library behind `staticnet checkpoint
// show`: a checkpoint written by save_checkpoint, the Python-written fixture, a plain
// safetensors file and a broken one.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/tools/checkpoint_show.hpp"
#include "test_checkpoint_support.hpp"  // TempDir

namespace {

using namespace staticnet::runtime;
namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
  return std::string(STATICNET_TEST_DATA_DIR) + "/cli/" + name;
}

using ScratchDir = staticnet::runtime::test::TempDir;

template <class T>
std::span<const std::byte> bytes(const std::vector<T>& values) {
  return std::as_bytes(std::span<const T>(values));
}

}  // namespace

TEST_CASE("checkpoint show: a saved checkpoint's tensors, state and metadata") {
  ScratchDir dir;
  const std::vector<float> weight(6, 0.5f);
  const std::vector<float> velocity(6, 0.0f);
  const std::vector<std::int64_t> counter{7};
  const std::vector<SafetensorsTensorRef> tensors{
      {"fc.weight", Dtype::f32, {2, 3}, bytes(weight)},
      {optimizer_state_name("sgd", "momentum", "fc.weight"), Dtype::f32, {2, 3}, bytes(velocity)},
      {"counter", Dtype::i64, {1}, bytes(counter)},
  };
  TrainingState state;
  state.step = 77;
  state.epoch = 2;
  state.rng_state = std::string("\x01\x02\x03\x04\x05", 5);
  state.data_order = {9, 320};
  save_checkpoint(dir / "ckpt.safetensors", tensors, state, {{"model", "mlp"}, {"lr", "0.1"}});

  const auto listing = inspect_checkpoint(dir / "ckpt.safetensors");
  CHECK(listing.file_bytes == fs::file_size(dir / "ckpt.safetensors"));
  CHECK(listing.tensor_bytes == 24 + 24 + 8);
  REQUIRE(listing.tensors.size() == 3);
  REQUIRE(listing.state.has_value());
  CHECK(*listing.state == state);
  CHECK(listing.metadata == std::map<std::string, std::string>{{"lr", "0.1"}, {"model", "mlp"}});

  const std::string text = format_checkpoint_listing(listing);
  CHECK(text.find("3 tensors, 56 bytes of tensor data)") != std::string::npos);
  CHECK(text.find("  step: 77\n  epochs done: 2\n") != std::string::npos);
  CHECK(text.find("  data position: epoch seed 9, 320 samples into epoch 3\n") !=
        std::string::npos);
  CHECK(text.find("  rng state: 5 bytes\n") != std::string::npos);
  CHECK(listing.floating_values == 12);  // the I64 counter is no floating-point value
  CHECK(listing.non_finite.empty());
  CHECK(text.find("values: all 12 floating-point values are finite\n") != std::string::npos);
  CHECK(text.find("metadata:\n  lr: 0.1\n  model: mlp\n") != std::string::npos);
  // The table's columns line up: every row puts its dtype at the same column as the heading.
  const auto heading = text.find("  name ");
  REQUIRE(heading != std::string::npos);
  const auto dtype_column = text.find("dtype", heading) - heading;
  const auto row = text.find("  optimizer.sgd.momentum.fc.weight");
  REQUIRE(row != std::string::npos);
  CHECK(text.find("F32", row) - row == dtype_column);
}

TEST_CASE("checkpoint show: a NaN in the optimizer's state alone leaves the weights usable") {
  ScratchDir dir;
  const std::vector<float> weight(4, 0.5f);
  const std::vector<float> moment{0.0f, std::numeric_limits<float>::quiet_NaN(), 0.0f, 0.0f};
  const std::vector<SafetensorsTensorRef> tensors{
      {"fc.weight", Dtype::f32, {4}, bytes(weight)},
      {optimizer_state_name("adam", "exp_avg_sq", "fc.weight"), Dtype::f32, {4}, bytes(moment)}};
  save_checkpoint(dir / "ckpt.safetensors", tensors, TrainingState{});
  const auto listing = inspect_checkpoint(dir / "ckpt.safetensors");
  REQUIRE(listing.non_finite.size() == 1);
  CHECK(listing.non_finite[0].tensor == "optimizer.adam.exp_avg_sq.fc.weight");
  CHECK(listing.non_finite[0].nan == 1);
  CHECK(listing.non_finite[0].first == 1);
  CHECK(format_checkpoint_listing(listing).find(
            "values: NOT ALL FINITE (--resume refuses this file; its weights are finite, and "
            "--init and the inference programs take them)\n  optimizer.adam.exp_avg_sq.fc.weight: "
            "1 NaN (the first at element 1)\n") != std::string::npos);
}

TEST_CASE("checkpoint show: the Python-written fixture") {
  const auto listing = inspect_checkpoint(fixture("checkpoint.safetensors"));
  REQUIRE(listing.tensors.size() == 4);
  CHECK(listing.tensors[0].name == "fc.weight");
  CHECK(listing.tensors[0].shape == std::vector<std::int64_t>{3, 4});
  CHECK(listing.tensors[3].dtype == Dtype::i64);
  CHECK(listing.tensor_bytes == 132);
  REQUIRE(listing.state.has_value());
  CHECK(listing.state->step == 1234);
  CHECK(listing.state->epoch == 3);
  CHECK(listing.state->data_order == DataOrderPosition{42, 256});
  CHECK(listing.state->rng_state.size() == 16);
  CHECK(listing.metadata.at("model") == "tiny-mlp");
}

TEST_CASE("checkpoint show: a safetensors file without staticnet state is listed as such") {
  const auto listing = inspect_checkpoint(fixture("plain.safetensors"));
  CHECK_FALSE(listing.state.has_value());
  CHECK(listing.metadata.at("format") == "pt");
  CHECK(format_checkpoint_listing(listing).find("training state: none") != std::string::npos);
}

TEST_CASE("checkpoint show: broken files and broken state are errors") {
  ScratchDir dir;
  // The fixture cut short: the data buffer no longer covers the tensors.
  {
    std::ifstream in(fixture("checkpoint.safetensors"), std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(dir / "cut.safetensors", std::ios::binary).write(all.data(), 600);
  }
  CHECK_THROWS_AS(inspect_checkpoint(dir / "cut.safetensors"), FormatError);
  CHECK_THROWS_AS(inspect_checkpoint(dir / "missing.safetensors"), IoError);

  // A "staticnet." key without the rest of the state.
  const std::vector<float> w{1.0f};
  const std::vector<SafetensorsTensorRef> tensors{{"w", Dtype::f32, {1}, bytes(w)}};
  write_safetensors(dir / "partial.safetensors", tensors, {{"staticnet.step", "3"}});
  CHECK_THROWS_WITH_AS(inspect_checkpoint(dir / "partial.safetensors"),
                       doctest::Contains("staticnet.format_version"), FormatError);
}
