#pragma once
// The command line of every generated trainer (NAME_trainer_cpu, NAME_trainer_cuda):
//
//   NAME_trainer_cpu --data FILE [--labels FILE] [--eval FILE [--eval-labels FILE]]
//                    [--epochs N] [--lr X] [--seed N] [--workers N] [--threads N]
//                    [--save FILE] [--resume FILE] [--metrics FILE] ...
//
// (--help lists everything). Exit status: 0 trained; 1 the data, a checkpoint or the numbers went
// wrong (the message says which file, which sample or which step); 2 a usage error; 130 stopped
// by a signal after saving.
#include <functional>
#include <memory>

#include "staticnet/runtime/trainer/backend.hpp"
#include "staticnet/runtime/trainer/model_info.hpp"

namespace staticnet::runtime {

// Makes the backend once the options are known (threads is --threads, at least 1).
using BackendFactory = std::function<std::unique_ptr<Backend>(int threads)>;

int trainer_main(int argc, char** argv, const ModelInfo& model, const BackendFactory& backend);

}  // namespace staticnet::runtime
