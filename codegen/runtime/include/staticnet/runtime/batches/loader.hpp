#pragma once
// BatchLoader: fixed-size batches of a Dataset, produced ahead of the consumer by worker threads
// into a fixed ring of host batch slots.
//
//  * Memory is fixed at construction: `slots` batch buffers, one scratch sample per worker when
//    augmenting, and two epoch orders when shuffling. host_bytes() reports exactly that sum;
//    nothing is allocated per batch or per sample afterwards.
//  * Batches come out in a fixed order, and batch (seed, epoch, batch) has the same bytes whatever
//    the worker count, slot count or timing: the epoch order is a function of (seed, epoch) and a
//    sample's augmentation of (seed, epoch, data set index). Workers split each batch into
//    disjoint row ranges and write them straight into the slot.
//  * An exception thrown while filling a batch (a FormatError from a corrupt sample, say) is
//    rethrown by the next()/acquire() that would have returned that batch; the batches before it
//    are delivered normally. After that the loader keeps rethrowing until seek().
//  * The destructor stops and joins the workers, wherever they are blocked.
//
// One consumer thread calls next/acquire/release/state/seek; the loader is not movable.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "staticnet/runtime/batches/batch_fill.hpp"
#include "staticnet/runtime/batches/loader_config.hpp"
#include "staticnet/runtime/dataset.hpp"

namespace staticnet::runtime {

// A ready batch, valid until release(). At most one of labels/targets is non-empty (neither for
// an unlabelled data set).
struct BatchView {
  std::span<const float> inputs;         // [batch, sample_shape...]
  std::span<const std::int32_t> labels;  // [batch], class_index data sets
  std::span<const float> targets;        // [batch, target_shape...], regression data sets
  LoaderState position;                  // which batch this is
};

class BatchLoader {
 public:
  // Starts at epoch 0, batch 0 of config.seed. Throws LoaderConfigError when the data set or the
  // configuration does not match the plan. `dataset` must outlive the loader.
  BatchLoader(const Dataset& dataset, LoaderConfig config);
  // Resumes at `start` (as returned by state()); start.seed replaces config.seed.
  BatchLoader(const Dataset& dataset, LoaderConfig config, LoaderState start);
  ~BatchLoader();

  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  // Copies the next batch into the plan's buffers, whose sizes must be exactly the batch's
  // (inputs: batch * product(sample_shape); labels: batch; targets: batch * product(target_shape)).
  void next(std::span<float> inputs, std::span<std::int32_t> labels);  // class_index
  void next(std::span<float> inputs, std::span<float> targets);        // regression
  void next(std::span<float> inputs);                                  // none (unlabelled)

  // Zero-copy: a view of the next batch in its slot, held until release(). At most one batch is
  // held at a time; the workers keep filling the other slots meanwhile.
  BatchView acquire();
  void release();

  // The position of the batch after the last one handed out: what the next next()/acquire()
  // returns. A batch held through acquire() counts as handed out, so a checkpoint saved after
  // training on it (released or not) resumes with the batch after it.
  LoaderState state() const;
  // Discards batches produced ahead and continues at `position`. Releases a held batch.
  void seek(LoaderState position);

  std::uint64_t batches_per_epoch() const { return filler_.batches_per_epoch(); }
  // Element counts of the batch buffers (input_floats, label_count, target_floats).
  const BatchLayout& layout() const { return filler_.layout(); }
  const LoaderConfig& config() const { return config_; }

  // Host bytes held: slots * slot_bytes + workers * scratch + epoch orders (see host_bytes_for).
  std::size_t host_bytes() const;
  // The same from the configuration alone, before constructing: the batch slots
  // (slots * (batch * sample * 4 + batch * 4 or batch * target * 4)), one f32 sample of scratch per
  // worker when augmenting, and, when shuffling, two epoch orders of dataset_size int64 each
  // (the order of the epoch being finished and of the one being started). Not counted: fixed
  // bookkeeping under 2 KiB (per-channel gain tables, slot and thread records) and the threads'
  // stacks, which the operating system maps.
  static std::size_t host_bytes_for(const LoaderConfig& config, std::int64_t dataset_size);

 private:
  struct Slot {
    std::vector<float> inputs;
    std::vector<std::int32_t> labels;
    std::vector<float> targets;
    std::uint64_t batch = 0;  // global batch number (epoch * batches_per_epoch + batch)
    int tasks_done = 0;
    bool ready = false;
    std::exception_ptr error;
  };
  struct EpochOrder {
    std::vector<std::int64_t> order;
    std::uint64_t epoch = 0;
    bool valid = false;
    int users = 0;  // tasks filling rows from this order right now
  };

  const Slot& wait_for_next_batch(std::unique_lock<std::mutex>& lock);
  void start_workers();
  void stop_workers();
  void worker_loop(std::size_t worker);
  bool can_claim() const;
  void check_buffer(std::size_t given, std::size_t needed, const char* what,
                    const std::vector<std::int64_t>& element_shape) const;

  const Dataset& dataset_;
  LoaderConfig config_;
  BatchFiller filler_;
  int tasks_per_batch_ = 1;

  // Storage, sized once in the constructor.
  std::vector<Slot> slots_;
  EpochOrder orders_[2];
  std::vector<std::vector<float>> scratch_;  // one per worker
  std::vector<std::jthread> workers_;

  // Shared between the consumer and the workers; guarded by mutex_.
  mutable std::mutex mutex_;
  std::condition_variable work_available_;  // workers wait: a slot freed, an order released, stop
  std::condition_variable batch_ready_;     // the consumer waits: a slot became ready
  std::uint64_t seed_ = 0;
  std::uint64_t next_consumed_ = 0;  // global number of the batch the consumer takes next
  std::uint64_t next_claim_batch_ = 0;
  int next_claim_task_ = 0;
  bool holding_ = false;  // the consumer holds slot next_consumed_ % slots via acquire()
  bool failed_ = false;   // a task threw: claim no new batches
  bool stopping_ = false;
};

}  // namespace staticnet::runtime
