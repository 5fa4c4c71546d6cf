// Interop with the Python safetensors package: files it wrote (data/safetensors, made by
// make_fixtures.py) load here with the exact values, and the file written here for
// python_interop_check.py (see python_interop.cmake) has the values that script expects.
#include <doctest/doctest.h>

#include <cstdlib>

#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/checkpoints/safetensors.hpp"
#include "test_checkpoint_support.hpp"

namespace staticnet::runtime::test {
namespace {

// What make_fixtures.py's CHECKPOINT_METADATA says, and what python_interop_check.py expects.
TrainingState interop_state() {
  TrainingState state;
  state.step = 1234;
  state.epoch = 7;
  state.rng_state = std::string("\x00\xff\x10\xab", 4);
  state.data_order.epoch_seed = 18446744073709551615ull;
  state.data_order.index_in_epoch = 96;
  return state;
}

TEST_CASE("safetensors interop: every dtype written by Python loads with the exact values") {
  const auto reader = SafetensorsReader::open(data_dir() + "/all_dtypes.safetensors");
  check_matches(reader, fixture_tensors());
  CHECK(reader.metadata().empty());
}

TEST_CASE("safetensors interop: __metadata__ written by Python") {
  const auto reader = SafetensorsReader::open(data_dir() + "/with_metadata.safetensors");
  const std::map<std::string, std::string> expected{{"format", "pt"},
                                                    {"note", "made by make_fixtures.py"},
                                                    {"unicode", "h\xc3\xa9llo \xe2\x9c\x93"}};
  CHECK(reader.metadata() == expected);
  REQUIRE(reader.find("weight") != nullptr);
  CHECK(same_bytes(reader.data(*reader.find("weight")), fixture_tensors()[1].data));
}

TEST_CASE("checkpoint interop: a checkpoint written by Python loads") {
  const auto checkpoint = load_checkpoint(data_dir() + "/python_checkpoint.safetensors");
  CHECK(checkpoint.state == interop_state());
  CHECK(checkpoint.extra_metadata == std::map<std::string, std::string>{{"user.comment", "kept"}});
  const auto* weight = checkpoint.find("fc.weight");
  REQUIRE(weight != nullptr);
  CHECK(weight->shape == std::vector<std::int64_t>{2, 3});
  CHECK(weight->data == bytes_of(std::vector<float>{0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.25f}));
  const auto* moment = checkpoint.find(optimizer_state_name("adam", "m", "fc.weight"));
  REQUIRE(moment != nullptr);
  CHECK(moment->data == bytes_of(std::vector<float>(6, 0.125f)));
}

// python_interop.cmake runs this with STATICNET_PYTHON_INTEROP_FILE set, then checks the file
// with Python; on its own it checks the file in C++ only.
TEST_CASE("checkpoint interop: the file for the Python check") {
  TempDir dir;
  const char* requested = std::getenv("STATICNET_PYTHON_INTEROP_FILE");
  const fs::path path = requested != nullptr ? fs::path(requested) : dir / "for_python.safetensors";
  const auto tensors = fixture_tensors();
  save_checkpoint(path, refs_of(tensors), interop_state(), {{"user.comment", "kept"}});

  const auto checkpoint = load_checkpoint(path);
  CHECK(checkpoint.state == interop_state());
  REQUIRE(checkpoint.tensors.size() == tensors.size());
  for (const auto& want : tensors) {
    CAPTURE(want.name);
    const auto* have = checkpoint.find(want.name);
    REQUIRE(have != nullptr);
    CHECK(have->data == want.data);
  }
}

}  // namespace
}  // namespace staticnet::runtime::test
