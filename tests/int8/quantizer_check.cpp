// Checks a NAME_quantize report (--report) against what TensorFlow Lite's converter made of the
// same float weights and calibration samples (tests/reference/int8_quantizer/<model>/tflite.json,
// made by tests/reference/make_int8_quantizer_fixtures.py), and the int8 model's outputs on the
// evaluation samples against TensorFlow Lite Micro's interpreter's.
//
//   int8_quantizer_check ranges REPORT.json TFLITE.json OUT.json
//       writes the converter's calibrated ranges as a report NAME_quantize --ranges takes
//   int8_quantizer_check calibration REPORT.json TFLITE.json
//       our calibrated ranges against the converter's: within 1e-5 of the range's extent (the
//       float sums run in another order), but where noted below
//   int8_quantizer_check exact REPORT.json TFLITE.json
//       the quantized model, from the converter's ranges, against the converter's, exactly:
//
// Exact: every activation scale (as stored, float32) and zero point, every int8 weight and int32
// bias, the quantized evaluation inputs and every output byte as TensorFlow Lite Micro's
// interpreter gives it (LiteRT's reference FULLY_CONNECTED rounds in double: see
// compare_exact). Weight scales within 1e-6 relative: the converter folds BatchNorm with other
// float32 operations than staticnet's kernels/batch_norm.hpp, so a folded channel's largest
// weight, and so its scale, may differ in the last bit (the int8 weights and biases do not).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

json load(const char* path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error(std::string("cannot read ") + path);
  return json::parse(in);
}

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::printf("MISMATCH %s\n", what.c_str());
  }
}

std::string text(const json& j) {
  return j.dump();
}

// Our tensor's stored scale and zero point against TensorFlow Lite's numbers for it.
void compare_tensor(const json& ours, double scale, int zero_point, const std::string& what) {
  const auto stored = ours.at("stored_scale").get<float>();
  expect(stored == static_cast<float>(scale) && ours.at("zero_point").get<int>() == zero_point,
         what + ": ours scale " + std::to_string(stored) + " zero point " +
             text(ours.at("zero_point")) + ", TensorFlow Lite's " + std::to_string(scale) + ", " +
             std::to_string(zero_point));
}

const char* our_kind(const std::string& tflite_op) {
  static const std::map<std::string, const char*> kinds = {{"conv2d", "product"},
                                                           {"depthwise_conv2d", "product"},
                                                           {"fully_connected", "product"},
                                                           {"max_pool", "pool"},
                                                           {"avg_pool", "pool"},
                                                           {"add", "sum"},
                                                           {"mean", "mean"}};
  const auto found = kinds.find(tflite_op);
  return found == kinds.end() ? nullptr : found->second;
}

// Our ops in order against the converter's (its RESHAPEs are views here); calls
// visit(converter's op, our op, its index).
template <class Visit>
std::size_t for_each_op(const json& ours, const json& tfl, Visit&& visit) {
  std::size_t next = 0;
  for (const json& op : tfl.at("ops")) {
    const char* kind = our_kind(op.at("op").get<std::string>());
    if (kind == nullptr)
      continue;
    const json& mine = ours.at("ops").at(next);
    expect(mine.at("kind") == kind, "op " + std::to_string(next) + ": ours is a " +
                                        text(mine.at("kind")) + ", the converter's a " +
                                        text(op.at("op")));
    visit(op, mine, next++);
  }
  expect(next == ours.at("ops").size(), "ours has ops TensorFlow Lite has not");
  return next;
}

// The converter's calibrated ranges in the form of a report's tensors.
void write_ranges(const json& ours, const json& tfl, const char* path) {
  json tensors = ours.at("tensors");
  auto set = [&](const json& index, const json& range) {
    tensors.at(index.get<std::size_t>())["min"] = range.at(0);
    tensors.at(index.get<std::size_t>())["max"] = range.at(1);
  };
  set(ours.at("input"), tfl.at("input_calibrated_range"));
  for_each_op(ours, tfl, [&](const json& op, const json& mine, std::size_t) {
    set(mine.at("output"), op.at("calibrated_range"));
  });
  std::ofstream out(path);
  out << json{{"tensors", tensors}}.dump(1) << "\n";
  if (!out)
    throw std::runtime_error(std::string("cannot write ") + path);
}

// Our ranges against the converter's. The converter gives the tensor an Add reads from a
// convolution without an activation the Add's own maximum (residual: [−4.35, 17.29] where the
// convolution's outputs reach 14.54): noted, not checked.
void compare_ranges(const json& ours, const json& tfl) {
  std::vector<bool> read_by_sum(ours.at("tensors").size(), false);
  for (const json& op : ours.at("ops"))
    if (op.at("kind") == "sum")
      for (const char* input : {"input", "input2"})
        read_by_sum.at(op.at(input).get<std::size_t>()) = true;
  double largest = 0;
  auto compare = [&](const json& index, const json& range, const std::string& what) {
    const json& t = ours.at("tensors").at(index.get<std::size_t>());
    const double lo = range.at(0), hi = range.at(1);
    const double extent = std::max(std::fabs(lo), std::fabs(hi));
    const double low_difference = std::fabs(t.at("min").get<double>() - lo) / extent;
    const double high_difference = std::fabs(t.at("max").get<double>() - hi) / extent;
    if (read_by_sum[index.get<std::size_t>()] && high_difference > 1e-5) {
      std::printf("noted: %s: ours [%.9g, %.9g], the converter's [%.9g, %.9g] (read by an Add)\n",
                  what.c_str(), t.at("min").get<double>(), t.at("max").get<double>(), lo, hi);
      return;
    }
    // A range the converter's calibration records as the smallest positive float for an
    // all-negative tensor holds 0 either way.
    const double high = std::max(hi, 0.0) == std::max(t.at("max").get<double>(), 0.0) || hi < 1e-30
                            ? 0.0
                            : high_difference;
    largest = std::max({largest, low_difference, high});
    expect(low_difference <= 1e-5 && high <= 1e-5, what + ": ours [" + text(t.at("min")) + ", " +
                                                       text(t.at("max")) + "], the converter's " +
                                                       text(range));
  };
  compare(ours.at("input"), tfl.at("input_calibrated_range"), "the input");
  for_each_op(ours, tfl, [&](const json& op, const json& mine, std::size_t i) {
    compare(mine.at("output"), op.at("calibrated_range"),
            "op " + std::to_string(i) + " (" + text(op.at("op")) + ")'s output");
  });
  std::printf("%s: calibrated ranges within %.2g of their extent of the converter's\n",
              ours.at("model").get<std::string>().c_str(), largest);
}

void compare_exact(const json& ours, const json& tfl) {
  const json& tensors = ours.at("tensors");
  auto tensor = [&](const json& index) -> const json& {
    return tensors.at(index.get<std::size_t>());
  };
  compare_tensor(tensor(ours.at("input")), tfl.at("input_scale"), tfl.at("input_zero_point"),
                 "the input");
  compare_tensor(tensor(ours.at("output")), tfl.at("output_scale"), tfl.at("output_zero_point"),
                 "the output");
  std::size_t product = 0, checked = 0;
  double largest_relative = 0;
  const std::size_t ops =
      for_each_op(ours, tfl, [&](const json& op, const json& mine, std::size_t i) {
        const std::string what = "op " + std::to_string(i) + " (" + text(op.at("op")) + ", layer " +
                                 text(mine.at("layer")) + ")";
        compare_tensor(tensor(mine.at("output")), op.at("output_scale"), op.at("output_zero_point"),
                       what + "'s output");
        expect(tensor(mine.at("input")).at("zero_point") == op.at("input_zero_point"),
               what + "'s input zero point");
        if (mine.at("kind") != "product")
          return;
        const json& p = ours.at("products").at(product++);
        expect(p.at("weights") == op.at("weights"), what + ": the int8 weights differ");
        expect(p.at("bias") == op.at("bias"), what + ": the int32 biases differ: ours " +
                                                  text(p.at("bias")) + ", TensorFlow Lite's " +
                                                  text(op.at("bias")));
        const json& scales = op.at("weight_scales");
        expect(p.at("weight_scales").size() == scales.size(), what + ": channel counts differ");
        for (std::size_t c = 0; c < scales.size() && c < p.at("weight_scales").size(); ++c) {
          const double a = p.at("weight_scales")[c], b = scales[c];
          const double relative = std::fabs(a - b) / b;
          largest_relative = std::max(largest_relative, relative);
          expect(relative < 1e-6, what + ": channel " + std::to_string(c) + "'s weight scale " +
                                      std::to_string(a) + " against " + std::to_string(b));
        }
        ++checked;
      });

  // The evaluation samples: the quantized inputs and every output byte, against TensorFlow Lite
  // Micro's interpreter, whose kernels a microcontroller runs, exactly; against LiteRT's
  // reference kernels, whose FULLY_CONNECTED requantizes in double (since 2025; TFLM's and ours
  // in integers, as its convolutions), to within 1 at a fully connected output.
  const json& evaluation = ours.at("evaluation");
  const json& outputs = evaluation.at("int8_outputs");
  expect(evaluation.at("int8_inputs") == tfl.at("evaluation_inputs_int8"),
         "the quantized evaluation inputs differ");
  std::size_t bytes = 0, differing = 0, litert_differing = 0;
  const json& expected = tfl.contains("tflm_evaluation_outputs") ? tfl.at("tflm_evaluation_outputs")
                                                                 : tfl.at("evaluation_outputs");
  const json& litert = tfl.at("evaluation_outputs");
  const bool fc_last = tfl.at("ops").back().at("op") == "fully_connected";
  expect(outputs.size() == expected.size(), "the evaluation sample counts differ");
  for (std::size_t s = 0; s < outputs.size() && s < expected.size(); ++s)
    for (std::size_t i = 0; i < expected[s].size(); ++i, ++bytes) {
      const int mine = outputs[s].at(i), theirs = expected[s][i], lite = litert[s][i];
      if (mine != theirs) {
        ++differing;
        expect(false, "evaluation sample " + std::to_string(s) + ", output " + std::to_string(i) +
                          ": ours " + std::to_string(mine) + ", TensorFlow Lite Micro's " +
                          std::to_string(theirs));
      }
      if (mine != lite) {
        ++litert_differing;
        expect(fc_last && std::abs(mine - lite) <= 1,
               "evaluation sample " + std::to_string(s) + ", output " + std::to_string(i) +
                   ": ours " + std::to_string(mine) + ", LiteRT's " + std::to_string(lite));
      }
    }
  std::printf(
      "%s: %zu products (weights, biases, scales) and %zu ops' output quantization as the "
      "converter's; %zu evaluation outputs of %zu samples checked against TensorFlow Lite's "
      "interpreter, %zu differ; weight scales within %.2g relative\n",
      ours.at("model").get<std::string>().c_str(), checked, ops, bytes, outputs.size(), differing,
      largest_relative);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (!((mode == "ranges" && argc == 5) ||
        ((mode == "calibration" || mode == "exact") && argc == 4))) {
    std::fprintf(stderr,
                 "usage: %s ranges REPORT.json TFLITE.json OUT.json\n"
                 "       %s calibration|exact REPORT.json TFLITE.json\n",
                 argv[0], argv[0]);
    return 2;
  }
  try {
    const json ours = load(argv[2]), tfl = load(argv[3]);
    if (mode == "ranges")
      write_ranges(ours, tfl, argv[4]);
    else if (mode == "calibration")
      compare_ranges(ours, tfl);
    else
      compare_exact(ours, tfl);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "int8_quantizer_check: %s\n", e.what());
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
