#include "staticnet/runtime/batches/loader.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "staticnet/runtime/batches/shuffle.hpp"

namespace staticnet::runtime {
namespace {

LoaderConfig validated(LoaderConfig config) {
  if (config.workers < 1) {
    throw LoaderConfigError("a batch loader needs at least 1 worker, found " +
                            std::to_string(config.workers));
  }
  if (config.slots < 1) {
    throw LoaderConfigError("a batch loader needs at least 1 batch slot, found " +
                            std::to_string(config.slots));
  }
  return config;
}

}  // namespace

BatchLoader::BatchLoader(const Dataset& dataset, LoaderConfig config)
    : BatchLoader(dataset, config, LoaderState{config.seed, 0, 0}) {}

BatchLoader::BatchLoader(const Dataset& dataset, LoaderConfig config, LoaderState start)
    : dataset_(dataset), config_(validated(std::move(config))), filler_(dataset_, config_) {
  const BatchLayout& layout = filler_.layout();
  // Each batch is split into this many disjoint row ranges, so that every worker can help with
  // the batch the consumer waits for even when the other slots are full.
  tasks_per_batch_ = static_cast<int>(std::min<std::int64_t>(config_.workers, layout.batch_size));

  slots_.resize(static_cast<std::size_t>(config_.slots));
  for (Slot& slot : slots_) {
    slot.inputs.resize(layout.input_floats());
    slot.labels.resize(layout.label_count());
    slot.targets.resize(layout.target_floats());
  }
  if (config_.shuffle) {
    for (EpochOrder& o : orders_)
      o.order.resize(static_cast<std::size_t>(dataset_.size()));
  }
  scratch_.resize(static_cast<std::size_t>(config_.workers));
  for (auto& s : scratch_)
    s.resize(filler_.scratch_floats());
  workers_.reserve(static_cast<std::size_t>(config_.workers));

  seek(start);
}

BatchLoader::~BatchLoader() {
  stop_workers();
}

std::size_t BatchLoader::host_bytes_for(const LoaderConfig& config, std::int64_t dataset_size) {
  const BatchLayout layout = BatchLayout::from(config);
  const bool augmenting = config.augmentation.enabled();
  std::size_t bytes = static_cast<std::size_t>(config.slots) * layout.slot_bytes();
  if (augmenting) {
    bytes += static_cast<std::size_t>(config.workers) *
             static_cast<std::size_t>(layout.sample_elements) * sizeof(float);
  }
  if (config.shuffle)
    bytes += 2 * static_cast<std::size_t>(dataset_size) * sizeof(std::int64_t);
  return bytes;
}

std::size_t BatchLoader::host_bytes() const {
  return host_bytes_for(config_, dataset_.size());
}

void BatchLoader::seek(LoaderState position) {
  if (position.batch >= batches_per_epoch()) {
    throw LoaderConfigError("loader position batch " + std::to_string(position.batch) +
                            " is past the end of an epoch of " +
                            std::to_string(batches_per_epoch()) + " batches");
  }
  stop_workers();
  // No worker runs now: reset the shared state without the lock's help.
  seed_ = position.seed;
  next_consumed_ = position.epoch * batches_per_epoch() + position.batch;
  next_claim_batch_ = next_consumed_;
  next_claim_task_ = 0;
  holding_ = false;
  failed_ = false;
  stopping_ = false;
  for (Slot& slot : slots_) {
    slot.ready = false;
    slot.tasks_done = 0;
    slot.error = nullptr;
  }
  for (EpochOrder& o : orders_) {
    o.valid = false;
    o.users = 0;
  }
  start_workers();
}

LoaderState BatchLoader::state() const {
  std::lock_guard lock(mutex_);
  const std::uint64_t next = next_consumed_ + (holding_ ? 1 : 0);
  return LoaderState{seed_, next / batches_per_epoch(), next % batches_per_epoch()};
}

void BatchLoader::start_workers() {
  for (std::size_t w = 0; w < static_cast<std::size_t>(config_.workers); ++w) {
    workers_.emplace_back([this, w] { worker_loop(w); });
  }
}

void BatchLoader::stop_workers() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_available_.notify_all();
  workers_.clear();  // joins; a worker in the middle of a task finishes that task first
}

// A worker may claim the next task when its batch has a slot (the batch `slots` before it was
// released) and the batch's epoch order is available or can be computed (its buffer, last used
// two epochs ago, has no users left). After a failure no new batch is started, but the tasks of
// a batch already started are still claimed, so that the failed batch reaches its consumer.
bool BatchLoader::can_claim() const {
  if (failed_ && next_claim_task_ == 0)
    return false;
  if (next_claim_batch_ >= next_consumed_ + slots_.size())
    return false;
  if (!config_.shuffle)
    return true;
  const std::uint64_t epoch = next_claim_batch_ / batches_per_epoch();
  const EpochOrder& o = orders_[epoch % 2];
  return (o.valid && o.epoch == epoch) || o.users == 0;
}

void BatchLoader::worker_loop(std::size_t worker) {
  std::span<float> scratch(scratch_[worker]);
  std::unique_lock lock(mutex_);
  for (;;) {
    work_available_.wait(lock, [this] { return stopping_ || can_claim(); });
    if (stopping_)
      return;

    const std::uint64_t global = next_claim_batch_;
    const int task = next_claim_task_;
    if (++next_claim_task_ == tasks_per_batch_) {
      next_claim_task_ = 0;
      ++next_claim_batch_;
    }
    const std::uint64_t epoch = global / batches_per_epoch();
    Slot& slot = slots_[global % slots_.size()];
    if (task == 0) {
      slot.batch = global;
      slot.tasks_done = 0;
      slot.ready = false;
      slot.error = nullptr;
    }
    EpochOrder* order = nullptr;
    if (config_.shuffle) {
      order = &orders_[epoch % 2];
      if (!order->valid || order->epoch != epoch) {
        // Once per epoch, under the lock: other workers have nothing of this epoch to do until
        // the order exists, and it is a single O(size) pass.
        epoch_order(seed_, epoch, order->order);
        order->epoch = epoch;
        order->valid = true;
      }
      ++order->users;
    }
    const std::uint64_t seed = seed_;
    lock.unlock();

    const std::int64_t batch_size = filler_.layout().batch_size;
    const std::int64_t first = batch_size * task / tasks_per_batch_;
    const std::int64_t last = batch_size * (task + 1) / tasks_per_batch_;
    std::exception_ptr error;
    try {
      filler_.fill_rows(
          order ? std::span<const std::int64_t>(order->order) : std::span<const std::int64_t>(),
          seed, epoch, global % batches_per_epoch(), first, last,
          BatchBuffers{slot.inputs.data(), slot.labels.data(), slot.targets.data()}, scratch);
    } catch (...) {
      error = std::current_exception();
    }

    lock.lock();
    if (error) {
      if (!slot.error)
        slot.error = std::move(error);
      failed_ = true;
    }
    if (order && --order->users == 0)
      work_available_.notify_all();
    if (++slot.tasks_done == tasks_per_batch_) {
      slot.ready = true;
      batch_ready_.notify_one();
    }
  }
}

const BatchLoader::Slot& BatchLoader::wait_for_next_batch(std::unique_lock<std::mutex>& lock) {
  if (holding_)
    throw std::logic_error("BatchLoader: acquire() or next() while a batch is held");
  const Slot& slot = slots_[next_consumed_ % slots_.size()];
  batch_ready_.wait(lock, [&] { return slot.ready && slot.batch == next_consumed_; });
  if (slot.error)
    std::rethrow_exception(slot.error);
  return slot;
}

BatchView BatchLoader::acquire() {
  std::unique_lock lock(mutex_);
  const Slot& slot = wait_for_next_batch(lock);
  holding_ = true;
  const std::uint64_t bpe = batches_per_epoch();
  return BatchView{slot.inputs, slot.labels, slot.targets,
                   LoaderState{seed_, next_consumed_ / bpe, next_consumed_ % bpe}};
}

void BatchLoader::release() {
  {
    std::lock_guard lock(mutex_);
    if (!holding_)
      throw std::logic_error("BatchLoader: release() without a held batch");
    holding_ = false;
    ++next_consumed_;
  }
  work_available_.notify_all();
}

void BatchLoader::check_buffer(std::size_t given, std::size_t needed, const char* what,
                               const std::vector<std::int64_t>& element_shape) const {
  if (given == needed)
    return;
  std::vector<std::int64_t> shape{config_.batch_size};
  shape.insert(shape.end(), element_shape.begin(), element_shape.end());
  throw LoaderConfigError("the caller's " + std::string(what) + " buffer has " +
                          std::to_string(given) + " elements but the planned " + what + " " +
                          shape_to_string(shape) + " need " + std::to_string(needed));
}

void BatchLoader::next(std::span<float> inputs, std::span<std::int32_t> labels) {
  if (config_.label_kind != LabelKind::class_index) {
    throw LoaderConfigError("next(inputs, labels) on a loader without class labels");
  }
  check_buffer(inputs.size(), filler_.layout().input_floats(), "inputs", config_.sample_shape);
  check_buffer(labels.size(), filler_.layout().label_count(), "labels", {});
  const BatchView view = acquire();
  std::memcpy(inputs.data(), view.inputs.data(), view.inputs.size_bytes());
  std::memcpy(labels.data(), view.labels.data(), view.labels.size_bytes());
  release();
}

void BatchLoader::next(std::span<float> inputs, std::span<float> targets) {
  if (config_.label_kind != LabelKind::regression) {
    throw LoaderConfigError("next(inputs, targets) on a loader without regression targets");
  }
  check_buffer(inputs.size(), filler_.layout().input_floats(), "inputs", config_.sample_shape);
  check_buffer(targets.size(), filler_.layout().target_floats(), "targets", config_.target_shape);
  const BatchView view = acquire();
  std::memcpy(inputs.data(), view.inputs.data(), view.inputs.size_bytes());
  std::memcpy(targets.data(), view.targets.data(), view.targets.size_bytes());
  release();
}

void BatchLoader::next(std::span<float> inputs) {
  if (config_.label_kind != LabelKind::none) {
    throw LoaderConfigError("next(inputs) on a loader with labels or targets; pass them too");
  }
  check_buffer(inputs.size(), filler_.layout().input_floats(), "inputs", config_.sample_shape);
  const BatchView view = acquire();
  std::memcpy(inputs.data(), view.inputs.data(), view.inputs.size_bytes());
  release();
}

}  // namespace staticnet::runtime
