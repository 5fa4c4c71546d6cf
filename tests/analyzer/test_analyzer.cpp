// The analyzer's library: sizes, the decoding of compile errors (on the spellings of g++, clang++
// and nvcc, written out by hand here; the compile-fail tests decode real compiler output), that
// every error template in errors.hpp has a decoding, that its budget checks on a
// microcontroller (SRAM and flash) agree with budget.hpp's on the same plans, and how it reports
// gradient accumulation (Accumulate<K>).
#include <doctest/doctest.h>

#include <array>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <staticnet/budget.hpp>

#include "data/accumulate.hpp"
#include "data/int8_digits.hpp"
#include "data/int8_over_budget.hpp"
#include "staticnet/analyzer/analyze.hpp"
#include "staticnet/analyzer/explain.hpp"
#include "staticnet/analyzer/render.hpp"
#include "staticnet/analyzer/report.hpp"

namespace an = staticnet::analyzer;

TEST_CASE("parse_size reads binary and decimal units") {
  CHECK(an::parse_size("3GiB") == 3LL * 1024 * 1024 * 1024);
  CHECK(an::parse_size("512 MiB") == 512LL * 1024 * 1024);
  CHECK(an::parse_size("1.5GiB") == 1610612736LL);
  CHECK(an::parse_size("2GB") == 2000000000LL);
  CHECK(an::parse_size("64kB") == 64000);
  CHECK(an::parse_size("1000") == 1000);
  CHECK_THROWS_AS(an::parse_size("lots"), an::UsageError);
  CHECK_THROWS_AS(an::parse_size("3 GiBs"), an::UsageError);
  CHECK_THROWS_AS(an::parse_size("-1GiB"), an::UsageError);
  CHECK_THROWS_AS(an::parse_size("0"), an::UsageError);
}

TEST_CASE("budgets_of names devices by id and refuses unknown ones with the list") {
  an::AnalyzeOptions o;
  o.devices = {"jetson_nano", "h100_80gb"};
  o.budgets = {3LL << 30};
  const auto b = an::budgets_of(o);
  REQUIRE(b.size() == 3);
  CHECK(b[0].name == "Jetson Nano 4GB");
  CHECK(b[0].memory == 4LL << 30);
  CHECK(b[0].overhead == 1536LL << 20);
  CHECK(b[1].memory == 81559LL << 20);
  CHECK(b[2].name == "budget 3.00 GiB");
  CHECK(b[2].overhead == 0);
  CHECK_FALSE(b[0].has_flash());
  o.devices = {"jetson_nanoo"};
  try {
    (void)an::budgets_of(o);
    FAIL("an unknown device must throw");
  } catch (const an::UsageError& e) {
    const std::string what = e.what();
    CHECK(what.find("unknown device 'jetson_nanoo'") != std::string::npos);
    CHECK(what.find("jetson_orin_nano") != std::string::npos);
    // ... the microcontrollers among them.
    CHECK(what.find("h200_141gb, stm32h743, nrf52840 (") != std::string::npos);
  }
}

TEST_CASE("budgets_of takes the microcontrollers, with their flash") {
  an::AnalyzeOptions o;
  o.devices = {"nrf52840", "stm32h743"};
  const auto b = an::budgets_of(o);
  REQUIRE(b.size() == 2);
  // device.hpp: the nRF52840's 256 KiB of SRAM and 1 MiB of flash; the STM32H743's 512 KiB AXI
  // SRAM and 2 MiB of flash; each 16 KiB of SRAM and 64 KiB of flash the firmware's.
  CHECK(b[0].name == "nRF52840");
  CHECK(b[0].memory == 262144);
  CHECK(b[0].overhead == 16384);
  CHECK(b[0].flash == 1048576);
  CHECK(b[0].flash_overhead == 65536);
  CHECK(b[0].has_flash());
  CHECK(b[1].name == "STM32H743 (AXI SRAM)");
  CHECK(b[1].memory == 524288);
  CHECK(b[1].flash == 2097152);
  CHECK(b[1].overhead == 16384);
  CHECK(b[1].flash_overhead == 65536);
}

TEST_CASE("report: a budget a model exceeds is said in one sentence, with the device's overhead") {
  an::ModelReport m;
  m.model.name = "big";
  m.model.model = "Big";
  m.model.setup = "BigTraining";
  m.model.plan.batch = 256;
  m.model.plan.footprint.total = 4379116544;  // 4.08 GiB
  // Jetson Nano: 4 GiB, 1.5 GiB of it the runtime's. Required 4,379,116,544 + 1,610,612,736 =
  // 5,989,729,280 B (5.58 GiB), 1,694,761,984 B (1.58 GiB) over.
  an::BudgetCheck nano{{"jetson_nano", "Jetson Nano 4GB", 4294967296, 1610612736},
                       5989729280,
                       -1694761984,
                       false,
                       0};
  an::BudgetCheck roomy{
      {"budget", "budget 8.00 GiB", 8589934592, 0}, 4379116544, 4210818048, true, 467};
  m.checks = {nano, roomy};
  const std::vector<std::string> sentences = an::over_budget_sentences(m);
  REQUIRE(sentences.size() == 1);  // the 8 GiB budget fits
  CHECK(sentences[0] ==
        "big: Big as BigTraining does not fit Jetson Nano 4GB (4.00 GiB): a step needs "
        "5,989,729,280 B (5.58 GiB), the plan's 4.08 GiB and the runtime's own 1.50 GiB: 1.58 GiB "
        "over; not even a batch of 1 fits");
}

TEST_CASE("explain: g++'s spelling of the seed's DeepCNN error") {
  const std::string gcc =
      "model.hpp:12:3: error: static assertion failed\n"
      "/usr/include/staticnet/errors.hpp: In instantiation of 'struct "
      "staticnet::error::linear_in_features_mismatch<staticnet::error::layer<10, "
      "staticnet::LayerKind::Linear>, staticnet::error::in_features_written<2048>, "
      "staticnet::error::features_arriving<8192>, staticnet::error::shape<128, 8, 8> >':\n"
      "model.hpp:20:   required from here\n"
      "  'staticnet::error::linear_in_features_mismatch<staticnet::error::layer<10, "
      "staticnet::LayerKind::Linear>, staticnet::error::in_features_written<2048>, "
      "staticnet::error::features_arriving<8192>, staticnet::error::shape<128, 8, 8> >'\n";
  const auto e = an::explain_compiler_output(gcc);
  REQUIRE(e.size() == 1);  // the same instantiation twice is one error
  CHECK(e[0].error == "linear_in_features_mismatch");
  CHECK(e[0].sentence ==
        "layer 10 (Linear): `InFeatures<2048>` is written, but 8192 features arrive "
        "(128 × 8 × 8); write InFeatures<8192>, or drop InFeatures to infer it");
  CHECK(e[0].where == "model.hpp:20");  // where the user's code asks for the plan
}

TEST_CASE("explain: clang's spelling, two models' errors in one log, each with its place") {
  // Two translation units of one build, abridged from clang 14's output: each error's last
  // "requested here" note is the user's line that asks for the plan.
  const std::string log =
      "/usr/include/staticnet/errors.hpp:181:3: error: static_assert failed due to requirement "
      "'always_false<staticnet::error::nonpositive_batch<staticnet::error::batch<0>>>' \"x\"\n"
      "/usr/include/staticnet/errors.hpp:290:11: note: in instantiation of template class "
      "'staticnet::error::nonpositive_batch<staticnet::error::batch<0>>' requested here\n"
      "/usr/include/staticnet/plan.hpp:457:10: note: in instantiation of variable template "
      "specialization 'staticnet::plan_v' requested here\n"
      "src/kws.cpp:14:39: note: in instantiation of function template specialization "
      "'staticnet::plan<kws::Net, kws::Setup>' requested here\n"
      "inline constexpr auto& p = staticnet::plan<kws::Net, kws::Setup>();\n"
      "1 error generated.\n"
      "/usr/include/staticnet/errors.hpp:181:3: error: static_assert failed due to requirement "
      "'always_false<staticnet::error::nonpositive_batch<staticnet::error::batch<-1>>>' \"x\"\n"
      "src/vww.cpp:9:1: note: in instantiation of function template specialization "
      "'staticnet::plan<vww::Net, vww::Setup>' requested here\n"
      "1 error generated.\n";
  const auto e = an::explain_compiler_output(log);
  REQUIRE(e.size() == 2);
  CHECK(e[0].sentence == "Batch<0>: the batch must be at least 1");
  CHECK(e[0].where == "src/kws.cpp:14:39");
  CHECK(e[1].sentence == "Batch<-1>: the batch must be at least 1");
  CHECK(e[1].where == "src/vww.cpp:9:1");

  // A static_assert that compares numbers names the type first in the note after the error.
  const std::string compared =
      "errors.hpp:155:3: error: static_assert failed due to requirement "
      "'in_features_written<2048>::value == features_arriving<8192>::value' \"x\"\n"
      "errors.hpp:281:11: note: in instantiation of template class "
      "'staticnet::error::linear_in_features_mismatch<staticnet::error::layer<10, "
      "staticnet::LayerKind::Linear>, staticnet::error::in_features_written<2048>, "
      "staticnet::error::features_arriving<8192>, staticnet::error::shape<128, 8, 8>>' "
      "requested here\n"
      "src/cnn.cpp:21:25: note: in instantiation of function template specialization "
      "'staticnet::plan<cnn::Net, cnn::Setup>' requested here\n"
      "1 error generated.\n";
  const auto c = an::explain_compiler_output(compared);
  REQUIRE(c.size() == 1);
  CHECK(c[0].where == "src/cnn.cpp:21:25");

  // A warning's notes after the error are not its chain; Windows line endings change nothing.
  std::string windows = log.substr(0, log.find("1 error generated."));
  windows +=
      "src/kws.cpp:30:9: warning: unused variable 'x'\n"
      "src/kws.cpp:31:5: note: in instantiation of function template specialization "
      "'warn<int>' requested here\n";
  std::string crlf;
  for (char c : windows)
    crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  for (const std::string& text : {windows, crlf}) {
    const auto w = an::explain_compiler_output(text);
    REQUIRE(w.size() == 1);
    CHECK(w[0].where == "src/kws.cpp:14:39");
  }
}

TEST_CASE("explain: g++'s chain belongs to the error after it, not to the one before") {
  // A CI excerpt that starts at the first model's error: only its note names the type, and
  // nothing says where it was asked for; the second model's chain is its own.
  const std::string log =
      "errors.hpp:100:17: error: static assertion failed: staticnet: the batch must be at least 1\n"
      "errors.hpp:100:17: note: 'staticnet::error::always_false<staticnet::error::nonpositive_"
      "batch<staticnet::error::batch<0> > >' evaluates to false\n"
      "errors.hpp: In instantiation of 'struct staticnet::error::nonpositive_batch<"
      "staticnet::error::batch<-1> >':\n"
      "plan.hpp:457:10:   required from 'constexpr const auto& staticnet::plan()'\n"
      "two.cpp:10:38:   required from here\n"
      "errors.hpp:100:17: error: static assertion failed: staticnet: the batch must be at least "
      "1\n";
  const auto e = an::explain_compiler_output(log);
  REQUIRE(e.size() == 2);
  CHECK(e[0].sentence == "Batch<0>: the batch must be at least 1");
  CHECK(e[0].where.empty());
  CHECK(e[1].sentence == "Batch<-1>: the batch must be at least 1");
  CHECK(e[1].where == "two.cpp:10:38");
}

TEST_CASE("explain: nvcc's [with ...] spelling and 64-bit L suffixes") {
  const std::string nvcc =
      "instantiation of class \"staticnet::error::nonpositive_window_option<Layer, Option, "
      "Height, Width> [with Layer=staticnet::error::layer<2L, staticnet::LayerKind::Conv2d>, "
      "Option=staticnet::error::option<staticnet::OptionKind::stride>, "
      "Height=staticnet::error::height<2L>, Width=staticnet::error::width<0L>]\" at line 9\n";
  const auto e = an::explain_compiler_output(nvcc);
  REQUIRE(e.size() == 1);
  CHECK(e[0].sentence ==
        "layer 2 (Conv2d): Stride is 2 × 0 (height × width); Kernel and Stride must be at least "
        "1, Padding at least 0");
}

TEST_CASE("explain: colour escapes in a build log do not hide the error") {
  const std::string log =
      "\x1b[01m\x1b[Kmodel.hpp:\x1b[m\x1b[K In instantiation of '\x1b[01m\x1b[Kstruct "
      "staticnet::error::nonpositive_batch<staticnet::error::batch<0> >\x1b[m\x1b[K':\n";
  const auto e = an::explain_compiler_output(log);
  REQUIRE(e.size() == 1);
  CHECK(e[0].sentence == "Batch<0>: the batch must be at least 1");
  CHECK(e[0].where.empty());  // the log does not say
}

TEST_CASE("explain: a Target of the wrong dtype is named by its dtype") {
  const std::string scalar =
      "x.hpp: In instantiation of 'struct staticnet::error::cross_entropy_needs_class_index_"
      "target<staticnet::error::shape<>, staticnet::error::target_dtype<staticnet::DType::f32> "
      ">':\n";
  auto e = an::explain_compiler_output(scalar);
  REQUIRE(e.size() == 1);
  CHECK(e[0].sentence ==
        "CrossEntropy takes one int32 class index per sample, sn::Target<sn::i32>, but the "
        "setup's Target is Target<sn::f32>: write Target<sn::i32>");
  const std::string mse =
      "x.hpp: In instantiation of 'struct staticnet::error::mse_target_mismatch<"
      "staticnet::error::shape<2>, staticnet::error::shape<2>, "
      "staticnet::error::target_dtype<staticnet::DType::i32> >':\n";
  e = an::explain_compiler_output(mse);
  REQUIRE(e.size() == 1);
  CHECK(e[0].sentence ==
        "MSE needs f32 targets; the setup's Target has the right shape, (2), but is i32");
}

TEST_CASE("explain: the errors of any kind in a log are counted, warnings not") {
  CHECK(an::count_compiler_errors("") == 0);
  CHECK(an::count_compiler_errors("main.cpp:3:5: error: 'foo' was not declared") == 1);  // no \n
  CHECK(an::count_compiler_errors("a.cpp:1:1: error: x\r\n"
                                  "a.cpp:2:1: warning: unused\r\n"
                                  "b.cpp:2:2: fatal error: y.hpp: No such file\r\n"
                                  "error: linker command failed\n") == 3);
}

TEST_CASE("explain: other errors are not staticnet's") {
  CHECK(an::explain_compiler_output("main.cpp:3:5: error: 'foo' was not declared").empty());
  CHECK(an::explain_compiler_output("staticnet::error::layer<1, staticnet::LayerKind::ReLU>")
            .empty());
}

TEST_CASE("every error template in errors.hpp has a decoding") {
  std::ifstream in(STATICNET_SOURCE_DIR "/include/staticnet/errors.hpp");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string source = text.str();
  // The error templates are the structs that hold a static_assert; the argument wrappers
  // (layer, shape, numbers) hold none.
  const std::regex error_struct(R"(struct (\w+) \{\n  static_assert)");
  int count = 0;
  for (std::sregex_iterator it(source.begin(), source.end(), error_struct), end; it != end; ++it) {
    const std::string name = (*it)[1];
    CAPTURE(name);
    const auto& known = an::explained_errors();
    CHECK(std::find(known.begin(), known.end(), name) != known.end());
    ++count;
  }
  CHECK(count == 36);
  CHECK(an::explained_errors().size() == 36);
}

TEST_CASE("explain: a layer's place in the model as the user nested it") {
  auto sentence = [](const std::string& nesting) {
    const std::string log =
        "x.hpp: In instantiation of 'struct staticnet::error::linear_in_features_mismatch<"
        "staticnet::error::layer<4, staticnet::LayerKind::Linear, staticnet::error::nesting<" +
        nesting +
        "> >, staticnet::error::in_features_written<64>, staticnet::error::features_arriving<32>, "
        "staticnet::error::shape<32> >':\n";
    const auto e = an::explain_compiler_output(log);
    REQUIRE(e.size() == 1);
    return e[0].sentence.substr(0, e[0].sentence.find(':'));
  };
  const std::string entry = "staticnet::error::entry<";
  // A flat model: the 5th entry is layer 4, which says it all.
  CHECK(sentence(entry + "5>") == "layer 4 (Linear)");
  CHECK(sentence(entry + "11>") == "layer 4 (Linear, the 11th entry of the outer Sequential)");
  CHECK(sentence(entry + "2>, " + entry + "2>, " + entry + "2>") ==
        "layer 4 (Linear, the 2nd entry of the Sequential that is the 2nd entry of the Sequential "
        "that is the 2nd entry of the outer Sequential)");
  CHECK(sentence(entry + "3>, staticnet::error::residual_body, " + entry + "1>") ==
        "layer 4 (Linear, the 1st entry of the body of the Residual that is the 3rd entry of the "
        "outer Sequential)");
  CHECK(sentence(entry + "12>, staticnet::error::residual_shortcut") ==
        "layer 4 (Linear, the shortcut of the Residual that is the 12th entry of the outer "
        "Sequential)");
  CHECK(sentence("staticnet::error::residual_body, staticnet::error::residual_body, " + entry +
                 "23>") ==
        "layer 4 (Linear, the 23rd entry of the body of the Residual that is the body of the "
        "outer Residual)");
  CHECK(sentence(entry + "1>, staticnet::error::residual_sum") ==
        "layer 4 (Linear, the sum that closes the Residual that is the 1st entry of the outer "
        "Sequential)");
  // An older staticnet's log, without the nesting.
  const auto old = an::explain_compiler_output(
      "x.hpp: In instantiation of 'struct staticnet::error::linear_in_features_mismatch<"
      "staticnet::error::layer<4, staticnet::LayerKind::Linear>, "
      "staticnet::error::in_features_written<64>, staticnet::error::features_arriving<32>, "
      "staticnet::error::shape<32> >':\n");
  REQUIRE(old.size() == 1);
  CHECK(old[0].sentence.starts_with("layer 4 (Linear): `InFeatures<64>` is written"));
  CHECK(old[0].layer == 4);
  CHECK(old[0].kind == "Linear");
  CHECK(old[0].place.empty());
}

TEST_CASE("explain: a pool's window written as a type, as g++ and clang++ say it") {
  // g++ 12, with its caret lines (and its UTF-8 quotes), then with -fno-diagnostics-show-caret.
  const std::string gcc =
      "net.hpp:3:103: error: type/value mismatch at argument 1 in template parameter list for "
      "\xe2\x80\x98template<auto [requires staticnet::PoolWindow<<placeholder>, >] Window, class "
      "... Options>  requires (... && LayerOption<Options>) struct "
      "staticnet::MaxPool2d\xe2\x80\x99\n"
      "    3 | using M = sn::Sequential<sn::MaxPool2d<sn::Kernel<3, 1>, sn::PaddingSame>>;\n"
      "      |                                                       ^\n"
      "net.hpp:3:103: note:   expected a constant of type \xe2\x80\x98"
      "auto [requires "
      "staticnet::PoolWindow<<placeholder>, >]\xe2\x80\x99, got "
      "\xe2\x80\x98staticnet::Kernel<3, 1>\xe2\x80\x99\n"
      "net.hpp:3:131: error: template argument 2 is invalid\n";
  auto e = an::explain_compiler_output(gcc);
  REQUIRE(e.size() == 1);
  CHECK(e[0].error == "pool_window_is_a_type");
  CHECK(e[0].where == "net.hpp:3:103");
  CHECK(e[0].sentence ==
        "MaxPool2d's window is a value, but sn::Kernel<3, 1> is a type: write sn::Kernel<3, 1>{} "
        "(with the braces), or a number K for a K × K window (MaxPool2d<2>)");
  const std::string no_caret =
      "net.hpp:3:20: error: type/value mismatch at argument 1 in template parameter list for "
      "'template<auto [requires staticnet::PoolWindow<<placeholder>, >] Window, class ... "
      "Options>  requires (... && LayerOption<Options>) struct staticnet::AvgPool2d'\n"
      "net.hpp:3:20: note:   expected a constant of type 'auto [requires "
      "staticnet::PoolWindow<<placeholder>, >]', got 'staticnet::Kernel<2, 2>'\n";
  e = an::explain_compiler_output(no_caret);
  REQUIRE(e.size() == 1);
  CHECK(e[0].sentence.starts_with(
      "AvgPool2d's window is a value, but sn::Kernel<2, 2> is a type: write sn::Kernel<2, 2>{}"));
  // clang++ 14 names neither the pool nor the type; the caret underlines what was written.
  const std::string clang =
      "net.hpp:3:42: error: template argument for non-type template parameter must be an "
      "expression\n"
      "using M = sn::Sequential<sn::MaxPool2d<sn::Kernel<3,1>, sn::PaddingSame>>;\n"
      "                                       ^~~~~~~~~~~~~~~\n"
      "/usr/include/staticnet/layers.hpp:232:27: note: template parameter is declared here\n"
      "template <PoolWindow auto Window, LayerOption... Options>\n"
      "                          ^\n";
  e = an::explain_compiler_output(clang);
  REQUIRE(e.size() == 1);
  CHECK(e[0].where == "net.hpp:3:42");
  CHECK(e[0].sentence ==
        "a pool's window is a value, but sn::Kernel<3, 1> is a type: write sn::Kernel<3, 1>{} "
        "(with the braces), or a number K for a K × K window (MaxPool2d<2>)");
}

TEST_CASE("analyze: the line that declares a model, where its errors are said") {
  const std::string header =
      "#include <staticnet/staticnet.hpp>\n"              // 1
      "namespace my {\n"                                  // 2
      "using NetTraining = sn::Training<>;\n"             // 3
      "using Net =\n"                                     // 4
      "    sn::Sequential<sn::Linear<3>>;\n"              // 5
      "struct Other {};\n"                                // 6
      "STATICNET_MODEL(other, my::Other, NetTraining)\n"  // 7
      "}\n";
  CHECK(an::declaration_line(header, "my::Net") == 4);
  CHECK(an::declaration_line(header, "Net") == 4);
  CHECK(an::declaration_line(header, "my::Other") == 7);  // its STATICNET_MODEL line first
  CHECK(an::declaration_line(header, "my::Missing") == 0);
  CHECK(an::declaration_line(header, "sn::Sequential<sn::Linear<3>>") == 0);
  // Not in a comment, not in the middle of a line.
  CHECK(an::declaration_line("// using Net = an old idea;\n#include <x>\n  using Net = y;\n",
                             "Net") == 3);
  CHECK(an::declaration_line("auto z = [] { using Net = int; };\n", "Net") == 0);
}

TEST_CASE("explain: a pool's window under clang's caret, written with names, and said once") {
  const std::string clang =
      "net.hpp:3:42: error: template argument for non-type template parameter must be an "
      "expression\n"
      "using M = sn::Sequential<sn::MaxPool2d<sn::Kernel<kRows, 1>, sn::PaddingSame>>;\n"
      "                                       ^~~~~~~~~~~~~~~~~~~~\n"
      "/usr/include/staticnet/layers.hpp:232:27: note: template parameter is declared here\n"
      "template <PoolWindow auto Window, LayerOption... Options>\n"
      "                          ^\n";
  const auto e = an::explain_compiler_output(clang + clang);  // two files include the header
  REQUIRE(e.size() == 1);
  CHECK(
      e[0].sentence.starts_with("a pool's window is a value, but sn::Kernel<kRows, 1> is a "
                                "type: write sn::Kernel<kRows, 1>{}"));
}

TEST_CASE("explain: a Residual's sum says where its block is") {
  auto sentence = [](const std::string& nesting) {
    const auto e = an::explain_compiler_output(
        "x.hpp: In instantiation of 'struct staticnet::error::residual_shapes_differ<"
        "staticnet::error::layer<2, staticnet::LayerKind::Add, staticnet::error::nesting<" +
        nesting +
        "> >, staticnet::error::block_starts_at_layer<0>, staticnet::error::identity_shortcut, "
        "staticnet::error::body_output<staticnet::error::shape<4, 8> >, "
        "staticnet::error::shortcut_output<staticnet::error::shape<4, 6> > >':\n");
    REQUIRE(e.size() == 1);
    return e[0].sentence.substr(0, e[0].sentence.find(':'));
  };
  CHECK(sentence("staticnet::error::residual_sum") ==
        "layer 2 (Add) closes the Residual block that starts at layer 0 (the whole model)");
  CHECK(sentence("staticnet::error::entry<3>, staticnet::error::residual_sum") ==
        "layer 2 (Add) closes the Residual block that starts at layer 0 (the 3rd entry of the "
        "outer Sequential)");
}

TEST_CASE("report: the layer table says which layers run as one pass, per backend") {
  // A convolution that pads unevenly and its ReLU: one pass on the CPU, two on CUDA (whose cuDNN
  // graphs take even padding only); a Linear alone on both.
  an::ModelDump m;
  m.name = "uneven";
  m.model = "Uneven";
  m.setup = "UnevenTraining";
  an::PlanDump& p = m.plan;
  p.mode = "training";
  p.batch = 2;
  p.input_dtype = "f32";
  p.input_shape = {2, 1, 8, 8};
  p.output_shape = {2, 2};
  auto layer = [](const char* kind, std::int64_t input, std::array<std::int64_t, 2> cpu,
                  std::array<std::int64_t, 2> cuda) {
    an::LayerRow l;
    l.kind = kind;
    l.inputs = {input};
    l.input_shape = l.output_shape = {2, 4, 4, 4};
    l.pass_cpu = cpu;
    l.pass_cuda = cuda;
    return l;
  };
  p.layers = {layer("Conv2d", -1, {0, 1}, {0, 0}), layer("ReLU", 0, {0, 1}, {1, 1}),
              layer("Linear", 1, {2, 2}, {2, 2})};
  p.schedule = {{"forward", 0, 0, {}}};
  an::Report report;
  report.models.push_back(an::build_report(m, {}));
  const std::string text = an::render_text(report, false);
  CHECK(text.find("one pass") != std::string::npos);
  CHECK(text.find("0–1, CUDA alone") != std::string::npos);
  CHECK(text.find("Linear") != std::string::npos);
}

namespace {

namespace sn = staticnet;

// The plan dump of a compile-time plan, as far as a budget check reads it: the footprint and
// the precision.
template <class M, class S>
an::ModelDump dump_of(const char* name, const char* model = "Net", const char* setup = "Setup") {
  constexpr auto& p = sn::plan_v<M, S>;
  an::ModelDump d;
  d.name = name;
  d.model = model;
  d.setup = setup;
  d.plan.mode = p.mode == sn::Mode::training ? "training" : "inference";
  d.plan.batch = p.batch();
  d.plan.precision = sn::name_of(p.setup.precision);
  for (an::Category c : an::categories)
    d.plan.footprint.by_category[static_cast<int>(c)] = p.footprint.of(c).count;
  d.plan.footprint.total = p.footprint.total().count;
  d.plan.host = {p.host.batch_slots.count, p.host.pinned_staging.count,
                 p.host.checkpoint_state.count, p.host.total().count};
  d.plan.footprint.host = p.host.total().count;
  return d;
}

// The analyzer's check of M under S on each microcontroller, and on a Jetson (whose budget counts
// the trainer's host bytes), against budget.hpp's: the memory and flash required, whether it
// fits, and the largest batch, which the probe finds by searching over whole plans
// (detail::max_batch_for, as analysis/probe.hpp calls it, on a device that shares host memory
// where the budget's does) within the bytes Budget::max_batch_search_bytes gives it.
template <class M, class S>
void check_against_budget_hpp(const char* name) {
  CAPTURE(name);
  constexpr auto& p = sn::plan_v<M, S>;
  an::AnalyzeOptions o;
  o.devices = {"nrf52840", "stm32h743", "jetson_nano"};
  const std::vector<an::Budget> budgets = an::budgets_of(o);
  const sn::Device devices[] = {sn::device::nrf52840, sn::device::stm32h743,
                                sn::device::jetson_nano};
  const an::ModelReport r = an::build_report(dump_of<M, S>(name), budgets);
  REQUIRE(r.checks.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const sn::Device& d = devices[i];
    const an::BudgetCheck& c = r.checks[i];
    CAPTURE(c.budget.name);
    CHECK(c.required == sn::required_memory(p, d).count);
    CHECK(c.flash_required == sn::required_flash(p, d).count);
    CHECK(c.in_flash == sn::flash_part(p.footprint, p.setup, d).count);
    CHECK(c.fits == sn::fits<M, S>(d));
    CHECK(c.fits_memory == (sn::required_memory(p, d) <= d.memory));
    CHECK(c.fits_flash == (sn::required_flash(p, d) <= d.flash));
    const std::int64_t search =
        c.budget.max_batch_search_bytes(r.model.plan.footprint, r.model.plan.precision);
    sn::Device shared;
    shared.shares_host_memory = c.budget.shares_host_memory;
    const std::int64_t probe_answer = sn::detail::max_batch_for(
        sn::flatten<M>(), S::desc(), sn::Bytes{search > 0 ? search : 1}, shared);
    CHECK(probe_answer == sn::max_batch<M, S>(d));
  }
}

}  // namespace

TEST_CASE("report: a microcontroller's SRAM and flash, as budget.hpp counts them") {
  // The digits CNN in int8 (tests/analyzer/data/int8_digits.hpp; samples/digits_cnn.hpp derives
  // it): 3,024 B of weights and per-channel numbers in flash, 1,280 B of SRAM.
  const an::ModelDump digits = dump_of<int8::Digits, int8::DigitsInt8>("int8_digits");
  CHECK(digits.plan.footprint[an::Category::weights] == 3024);
  CHECK(digits.plan.footprint.total == 3024 + 1280);
  an::AnalyzeOptions o;
  o.devices = {"nrf52840"};
  const an::ModelReport r = an::build_report(digits, an::budgets_of(o));
  REQUIRE(r.checks.size() == 1);
  const an::BudgetCheck& c = r.checks[0];
  CHECK(c.in_flash == 3024);
  CHECK(c.required == 1280 + 16384);  // 17,664 B of 262,144
  CHECK(c.margin == 262144 - 17664);
  CHECK(c.flash_required == 3024 + 65536);  // 68,560 B of 1,048,576
  CHECK(c.flash_margin == 1048576 - 68560);
  CHECK(c.fits);
  CHECK(an::over_budget_sentences(r).empty());

  check_against_budget_hpp<int8::Digits, int8::DigitsInt8>("int8_digits");
  check_against_budget_hpp<int8::Digits, int8::DigitsFP32>("fp32_digits");  // all in SRAM
  check_against_budget_hpp<over::Vww, over::VwwInt8>("int8_vww");
  check_against_budget_hpp<over::WideMlp, over::WideMlpInt8>("int8_wide_mlp");
  // A training plan on a microcontroller: all in SRAM, as any plan but an Int8 one.
  using DigitsTraining = sn::Training<sn::Input<sn::f32, 1, 8, 8>, sn::Batch<32>,
                                      sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>>;
  check_against_budget_hpp<int8::Digits, DigitsTraining>("digits_training");
}

TEST_CASE("report: a microcontroller's exceeded SRAM and flash are said apart, with numbers") {
  an::AnalyzeOptions o;
  o.devices = {"nrf52840"};
  const std::vector<an::Budget> nrf = an::budgets_of(o);
  // tests/compile_fail/cases/budget_mcu_sram_does_not_fit.cpp derives it: SRAM 368,640 +
  // 16,384 = 385,024 B > 262,144 B; flash 148,736 + 65,536 = 214,272 B fits.
  an::ModelReport vww =
      an::build_report(dump_of<over::Vww, over::VwwInt8>("vww", "Vww", "VwwInt8"), nrf);
  REQUIRE(vww.checks.size() == 1);
  CHECK(vww.checks[0].required == 385024);
  CHECK(vww.checks[0].flash_required == 214272);
  CHECK_FALSE(vww.checks[0].fits);
  CHECK_FALSE(vww.checks[0].fits_memory);
  CHECK(vww.checks[0].fits_flash);
  auto sentences = an::over_budget_sentences(vww);
  REQUIRE(sentences.size() == 1);
  CHECK(sentences[0] ==
        "vww: Vww as VwwInt8 does not fit the SRAM of nRF52840: a forward pass needs 385,024 B "
        "(376.00 KiB) of "
        "SRAM, the plan's 368,640 B (all but its weights, which are in flash) and the firmware's "
        "own 16,384 B, but the SRAM is 262,144 B (256.00 KiB): 122,880 B (120.00 KiB) over; not "
        "even a batch of 1 fits");
  // budget_mcu_flash_does_not_fit.cpp: flash 1,226,528 + 65,536 = 1,292,064 B > 1,048,576 B.
  an::ModelReport mlp = an::build_report(
      dump_of<over::WideMlp, over::WideMlpInt8>("mlp", "WideMlp", "WideMlpInt8"), nrf);
  CHECK(mlp.checks[0].flash_required == 1292064);
  CHECK(mlp.checks[0].fits_memory);
  CHECK_FALSE(mlp.checks[0].fits_flash);
  sentences = an::over_budget_sentences(mlp);
  REQUIRE(sentences.size() == 1);
  CHECK(sentences[0] ==
        "mlp: WideMlp as WideMlpInt8 does not fit the flash of nRF52840: it needs 1,292,064 B "
        "(1.23 MiB) of flash, its "
        "weights and per-channel numbers 1,226,528 B and the firmware's code 65,536 B, but the "
        "flash is 1,048,576 B (1.00 MiB): 243,488 B (237.78 KiB) over; no batch fits (the "
        "weights do not shrink with the batch)");
  // Over both: two sentences, SRAM's first.
  an::Budget tiny = nrf[0];
  tiny.memory = 16384 + 1024;
  tiny.flash = 65536 + 1024;
  const an::ModelReport both =
      an::build_report(dump_of<over::Vww, over::VwwInt8>("vww", "Vww", "VwwInt8"), {tiny});
  sentences = an::over_budget_sentences(both);
  REQUIRE(sentences.size() == 2);
  CHECK(sentences[0].starts_with("vww: Vww as VwwInt8 does not fit the SRAM of nRF52840"));
  CHECK(sentences[1].starts_with("vww: Vww as VwwInt8 does not fit the flash of nRF52840"));
}

TEST_CASE("explain: Accumulate<K> that does not divide the batch, or is not positive") {
  // g++'s spelling (tests/analyzer/data/accumulate_does_not_divide.hpp's error).
  auto e = an::explain_compiler_output(
      "errors.hpp: In instantiation of 'struct staticnet::error::micro_batches_do_not_divide<"
      "staticnet::error::batch<8>, staticnet::error::micro_batches<3> >':\n"
      "net.hpp:9:1:   required from here\n");
  REQUIRE(e.size() == 1);
  CHECK(e[0].error == "micro_batches_do_not_divide");
  CHECK(e[0].sentence ==
        "Accumulate<3> splits Batch<8> into micro-batches of equal size, but 3 does not divide 8");
  CHECK(e[0].where == "net.hpp:9:1");
  // clang's, with nvcc's L suffix besides.
  e = an::explain_compiler_output(
      "errors.hpp:140:3: error: static_assert failed due to requirement "
      "'MicroBatches::value > 0'\n"
      "errors.hpp:335:11: note: in instantiation of template class "
      "'staticnet::error::nonpositive_micro_batches<staticnet::error::micro_batches<0L>>' "
      "requested here\n");
  REQUIRE(e.size() == 1);
  CHECK(e[0].sentence == "Accumulate<0>: a step runs at least 1 micro-batch");
}

namespace {

// A training plan of one Linear under Accumulate<4>, batch 8: forward, loss, backward, update.
an::ModelDump accumulating_dump() {
  an::ModelDump m;
  m.name = "acc";
  m.model = "Net";
  m.setup = "Setup";
  an::PlanDump& p = m.plan;
  p.mode = "training";
  p.batch = 8;
  p.micro_batches = 4;
  p.optimizer = "SGD";
  p.loss = "CrossEntropy";
  p.precision = "FP32";
  p.input_dtype = "f32";
  p.input_shape = {2, 4};
  p.output_shape = {2, 3};
  an::LayerRow l;
  l.kind = "Linear";
  l.inputs = {-1};
  l.input_shape = {2, 4};
  l.output_shape = {2, 3};
  p.layers = {l};
  p.schedule = {
      {"forward", 0, 0, {}}, {"loss", -1, 0, {}}, {"backward", 0, 0, {}}, {"update", -1, 0, {}}};
  return m;
}

}  // namespace

TEST_CASE("report: Accumulate<K> in the setup line, the timeline's loop and the budgets") {
  const an::ModelDump d = accumulating_dump();
  CHECK(d.plan.micro_batch() == 2);
  CHECK(d.plan.runs_per_step(0) == 4);
  CHECK(d.plan.runs_per_step(2) == 4);
  CHECK(d.plan.runs_per_step(3) == 1);  // the update, once a step
  an::Report report;
  report.models.push_back(an::build_report(d, {{"budget", "budget 1.00 KiB", 1024, 0}}));
  std::string text = an::render_text(report, false);
  // Unwrapped, as a paragraph reads.
  std::string words;
  std::istringstream in(text);
  for (std::string w; in >> w;)
    words += (words.empty() ? "" : " ") + w;
  CHECK(words.find("training step: batch 8 as 4 micro-batches of 2 (Accumulate<4>), SGD, "
                   "CrossEntropy, FP32") != std::string::npos);
  CHECK(words.find("input f32 (2, 4) → output (2, 3) per micro-batch") != std::string::npos);
  CHECK(words.find("Steps 0–2 (forward, loss and backward) run 4 times in a training step, once "
                   "per micro-batch of 2, in the same buffers each time (shown once here); the "
                   "update, step 3, runs once, after the last.") != std::string::npos);
  CHECK(words.find("under Accumulate<4> the largest batch is a multiple of 4)") !=
        std::string::npos);
  const std::string markdown = an::render_markdown(report);
  CHECK(markdown.find("batch 8 as 4 micro-batches of 2 (Accumulate<4>)") != std::string::npos);
  CHECK(markdown.find("Steps 0–2 (forward, loss and backward) run 4 times") != std::string::npos);
  const std::string svg = an::render_svg(report);
  CHECK(svg.find("batch 8 as 4 micro-batches of 2, SGD; arena") != std::string::npos);
  CHECK(svg.find("× 4: steps 0–2 run once per micro-batch of 2; the update once") !=
        std::string::npos);
  // Without Accumulate none of it.
  an::ModelDump plain = d;
  plain.plan.micro_batches = 1;
  report.models = {an::build_report(plain, {})};
  text = an::render_text(report, false);
  CHECK(text.find("micro-batch") == std::string::npos);
  CHECK(text.find("training step: batch 8, SGD, CrossEntropy, FP32\n") != std::string::npos);
  CHECK(an::render_svg(report).find("× ") == std::string::npos);
}

TEST_CASE("report: swept points whose K does not divide the batch are left out, with a note") {
  an::ModelDump d = accumulating_dump();
  d.plan.micro_batches = 1;  // the setup's: the whole batch at once
  an::FootprintBytes f;
  f.total = 1000;
  d.sweep = {{8, "SGD", "FP32", f, 1, ""}, {8, "SGD", "FP32", f, 4, ""}};
  d.sweep[1].footprint.total = 400;
  // --batch 6,8,10 --optimizer SGD,Adam --accumulate 1,4: 4 does not divide 6 or 10.
  const std::string divide = "micro_batches_do_not_divide";
  d.not_applicable = {{6, "SGD", "FP32", {}, 4, divide},
                      {10, "SGD", "FP32", {}, 4, divide},
                      {6, "Adam", "FP32", {}, 4, divide},
                      {10, "Adam", "FP32", {}, 4, divide}};
  an::Report report;
  report.models.push_back(an::build_report(d, {}));
  const std::string text = an::render_text(report, false);
  CHECK(text.find("What-if: the footprint by batch and micro-batches") != std::string::npos);
  CHECK(text.find("micro-batches") != std::string::npos);
  CHECK(text.find("4 × 2") != std::string::npos);
  CHECK(text.find("batch 8, SGD: as 4 micro-batches of 2, 400 B, 600 B less than as 1 "
                  "micro-batch of 8 (the setup's)") != std::string::npos);
  CHECK(text.find("Not applicable, left out: 4 micro-batches with batch 6 or 10 (Accumulate<4> "
                  "splits a batch into 4 of equal size, but 4 does not divide them).") !=
        std::string::npos);
  // A BatchNorm given one sample at a time (--batch 1,8 --accumulate 1,8 on a model with a
  // BatchNorm1d): batch 1 and 8 micro-batches of 1 do not plan either.
  const std::string one_value = "batch_norm_one_value_per_channel";
  d.not_applicable.push_back({1, "SGD", "FP32", {}, 1, one_value});
  d.not_applicable.push_back({8, "SGD", "FP32", {}, 8, one_value});
  report.models = {an::build_report(d, {})};
  const std::string with_norm = an::render_text(report, false);
  CHECK(with_norm.find("Not applicable, left out: batch 1 (a batch of one sample gives a BatchNorm "
                       "one value per channel, which it cannot normalise: "
                       "batch_norm_one_value_per_channel).") != std::string::npos);
  CHECK(with_norm.find("Not applicable, left out: 8 micro-batches with batch 8 (micro-batches of "
                       "one sample give a BatchNorm one value per channel") != std::string::npos);
  // Every point not applicable: the note alone, no table.
  d.sweep.clear();
  report.models = {an::build_report(d, {})};
  const std::string alone = an::render_text(report, false);
  CHECK(alone.find("What-if") != std::string::npos);
  CHECK(alone.find("Not applicable, left out") != std::string::npos);
  CHECK(alone.find("optimizer  micro-batches") == std::string::npos);  // no sweep table
}

TEST_CASE("probe: the largest batch under Accumulate<K> is the largest multiple of K that fits") {
  // The probe asks budget.hpp's search (detail::max_batch_for), as for any setup.
  constexpr auto layers = sn::flatten<accumulate::Net>();
  const sn::SetupDesc setup = accumulate::Setup::desc();
  REQUIRE(setup.micro_batches == 4);
  auto total = [&](std::int64_t batch) {
    return sn::detail::total_for_batch(layers, setup, batch);
  };
  // The plan the probe reports is plan_v's: 1,339,648 B (check_analyzer.py derives it by hand).
  CHECK(total(32) == sn::plan_v<accumulate::Net, accumulate::Setup>.footprint.total().count);
  CHECK(total(32) == 1339648);
  for (const std::int64_t budget : {total(4) - 1, total(4), std::int64_t{1} << 20,
                                    std::int64_t{2} << 20, std::int64_t{64} << 20}) {
    CAPTURE(budget);
    const std::int64_t b = sn::detail::max_batch_for(layers, setup, sn::Bytes{budget});
    CHECK(b % 4 == 0);
    if (b == 0) {
      CHECK(total(4) > budget);
      continue;
    }
    CHECK(total(b) <= budget);
    CHECK(total(b + 4) > budget);
  }
}
