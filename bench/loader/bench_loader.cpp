// Batches per second of staticnet's BatchLoader on real files (.npy or CIFAR-10 binary), in the
// configuration of a CIFAR trainer: batch 128, shuffle, normalisation to the CIFAR-10 channel
// statistics, optionally random crop (pad 4) + horizontal flip. The consumer takes each batch
// zero-copy (acquire/release) and reads one value of it, as a trainer's first layer would start
// to; only batches after the warm-up are timed.
//
// usage: staticnet_bench_loader --format npy|cifar10 [--workers N] [--augment] [--batch 128]
//                               [--warmup 20] [--batches 2000] FILE...
// prints: one line "format=npy workers=2 augment=1 batch=128 batches=2000 seconds=...
// batches_per_s=..."
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "staticnet/runtime/batches/loader.hpp"
#include "staticnet/runtime/formats/open_dataset.hpp"

namespace rt = staticnet::runtime;

namespace {

struct Args {
  std::string format = "npy";
  int workers = 1;
  bool augment = false;
  std::int64_t batch = 128;
  std::int64_t warmup = 20;
  std::int64_t batches = 2000;
  std::vector<std::string> files;
};

[[noreturn]] void usage(const char* problem) {
  std::fprintf(stderr,
               "staticnet_bench_loader: %s\nusage: staticnet_bench_loader --format npy|cifar10 "
               "[--workers N] [--augment] [--batch B] [--warmup W] [--batches N] FILE...\n",
               problem);
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usage(("missing value after " + arg).c_str());
      return argv[++i];
    };
    if (arg == "--format")
      args.format = value();
    else if (arg == "--workers")
      args.workers = std::stoi(value());
    else if (arg == "--augment")
      args.augment = true;
    else if (arg == "--batch")
      args.batch = std::stoll(value());
    else if (arg == "--warmup")
      args.warmup = std::stoll(value());
    else if (arg == "--batches")
      args.batches = std::stoll(value());
    else if (arg.starts_with("--"))
      usage(("unknown option " + arg).c_str());
    else
      args.files.push_back(arg);
  }
  if (args.files.empty())
    usage("no data files");
  return args;
}

}  // namespace

int main(int argc, char** argv) try {
  const Args args = parse(argc, argv);
  rt::OpenOptions open;
  const auto format = rt::parse_dataset_format(args.format);
  if (!format)
    usage("unknown format");
  open.format = *format;
  const auto dataset = rt::open_dataset(args.files, open);

  rt::LoaderConfig config;
  config.batch_size = args.batch;
  config.sample_shape = dataset->sample_shape();
  config.shuffle = true;
  config.seed = 1;
  config.normalization.scale = 1.0f / 255.0f;
  config.normalization.mean = {0.4914f, 0.4822f, 0.4465f};
  config.normalization.stddev = {0.2470f, 0.2435f, 0.2616f};
  if (args.augment) {
    config.augmentation.crop_padding = 4;
    config.augmentation.horizontal_flip = true;
  }
  config.workers = args.workers;
  config.slots = 2 * args.workers;  // as many batches in flight as PyTorch's prefetch_factor=2

  rt::BatchLoader loader(*dataset, config);
  volatile float sink = 0.0f;
  auto take = [&] {
    const auto view = loader.acquire();
    sink = sink + view.inputs[0] + static_cast<float>(view.labels[0]);
    loader.release();
  };
  for (std::int64_t i = 0; i < args.warmup; ++i)
    take();
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < args.batches; ++i)
    take();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  std::printf(
      "format=%s workers=%d augment=%d batch=%lld batches=%lld seconds=%.4f batches_per_s=%.2f\n",
      args.format.c_str(), args.workers, args.augment ? 1 : 0, static_cast<long long>(args.batch),
      static_cast<long long>(args.batches), elapsed.count(),
      static_cast<double>(args.batches) / elapsed.count());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "staticnet_bench_loader: %s\n", e.what());
  return 1;
}
