// `staticnet checkpoint show`: the tensors, training state and metadata of a checkpoint.
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "staticnet/runtime/tools/checkpoint_show.hpp"

namespace staticnet::cli {

void add_checkpoint_commands(CLI::App& app, Runner& run) {
  auto* checkpoint = app.add_subcommand("checkpoint", "Inspect checkpoints");
  checkpoint->require_subcommand(1);
  auto* show = checkpoint->add_subcommand(
      "show",
      "List a checkpoint's tensors (name, dtype, shape, bytes), its training state (step, epoch, "
      "data position) and metadata");
  auto file = std::make_shared<std::string>();
  show->add_option("file", *file, "A .safetensors checkpoint")->required();
  show->callback([file, &run] {
    run = [file] {
      const runtime::CheckpointListing listing = runtime::inspect_checkpoint(*file);
      std::cout << runtime::format_checkpoint_listing(listing) << std::flush;
      if (listing.non_finite.empty())
        return 0;
      // As `data check` does with a NaN in data: listed, and the exit status says it.
      std::cerr << "staticnet: error: " << listing.source << ": " << listing.non_finite.size()
                << (listing.non_finite.size() == 1 ? " tensor holds" : " tensors hold")
                << " values the programs refuse (listed above)\n";
      return 1;
    };
  });
}

}  // namespace staticnet::cli
