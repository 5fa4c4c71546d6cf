#pragma once
// The report's tables and sentences, shared by the text and Markdown forms, which differ only in
// how they frame them.
#include <string>
#include <vector>

#include "staticnet/analyzer/report.hpp"
#include "table.hpp"

namespace staticnet::analyzer {

// "training step: batch 128, Adam, CrossEntropy, FP32"; under Accumulate<4> "batch 128 as 4
// micro-batches of 32 (Accumulate<4>)"
std::string setup_line(const PlanDump& plan);
// "input f32 (128, 3, 32, 32) → output (128, 10); 41,418 parameters; 5 layers; 13 buffers ..."
std::string shape_line(const PlanDump& plan);
Table layer_table(const ModelReport& m);
// How the FLOP columns count and what "saved" means.
std::string flop_conventions(const PlanDump& plan);
Table footprint_table(const ModelReport& m);
std::string footprint_heading(const PlanDump& plan);
// "21,747,200 B (20.74 MiB) at step 7 of 12, backward of layer 3 (Flatten)"
std::string peak_line(const ModelReport& m);
// Whether the arena equals the peak, or by how much placement exceeds it.
std::string arena_line(const ModelReport& m);
// Under Accumulate<K>: that the steps before the update run K times, once per micro-batch (the
// timeline shows one iteration); empty without.
std::string loop_line(const PlanDump& plan);
Table consumer_table(const ModelReport& m, const std::vector<Consumer>& consumers);
// What "required" counts, for the budgets' heading: "required = the step's footprint + ...".
std::string check_rule(const ModelReport& m);
// One row per budget; a microcontroller's two, its SRAM and its flash. `row_fits`, when given,
// gets whether each row's budget fits.
Table check_table(const ModelReport& m, std::vector<bool>* row_fits = nullptr);
// With a microcontroller among the budgets: a sentence on what of the plan is in flash and what
// in SRAM, then a line per microcontroller with each budget's sum, by the byte; empty without.
std::vector<std::string> flash_lines(const ModelReport& m);
// Where a budget's device shares its memory with the host: the trainer's host bytes it counts.
std::vector<std::string> host_lines(const ModelReport& m);
// --fit: "What fits Jetson Nano 4GB (…), cheapest first", and its setups as a table: the setup
// as it is, each accumulation, the largest batch, with their bytes and extra compute; or, where
// nothing fits, the one line that says so.
std::string fit_heading(const FitMenu& menu);
Table fit_table(const ModelReport& m, const FitMenu& menu);
std::string nothing_fits_line(const ModelReport& m, const FitMenu& menu);
Table sweep_table(const ModelReport& m);
Table sweep_max_batch_table(const ModelReport& m);
// Whether the sweep spans another precision than the setup's (--precision).
bool sweeps_precision(const ModelReport& m);
// Whether the report has a what-if section: swept points, planned or not applicable.
bool has_sweep(const ModelReport& m);
// Whether the sweep spans other micro-batches than the setup's (--accumulate).
bool sweeps_accumulation(const ModelReport& m);
// Whether the sweep's rows say their micro-batches: under --accumulate, or a setup with
// Accumulate<K>.
bool shows_micro_batches(const ModelReport& m);
// Whether the sweep spans other checkpointing policies than the setup's (--checkpoint).
bool sweeps_checkpoint(const ModelReport& m);
// Whether the sweep's rows say their policy: under --checkpoint, or a setup with Checkpoint<P>.
bool shows_checkpoint(const ModelReport& m);
// Under --checkpoint, a line per batch, optimizer, precision and micro-batches with more than one
// policy: what each saves or costs against the setup's (else the first swept), and the compute
// it adds; then what checkpointing does. Empty without.
std::vector<std::string> checkpoint_lines(const ModelReport& m);
// Under --accumulate, a line per batch, optimizer and precision with more than one K: what each
// saves or costs against the setup's micro-batches (else the first swept), then what changes
// with K; empty without.
std::vector<std::string> accumulation_lines(const ModelReport& m);
// The swept points left out because their K does not divide their batch, a line per K; empty
// when there are none.
std::vector<std::string> not_applicable_lines(const ModelReport& m);
// Under --precision, a line per batch and optimizer that names the smallest precision and what
// it saves or costs against the setup's, then what the trainers run; empty without.
std::vector<std::string> precision_lines(const ModelReport& m);

}  // namespace staticnet::analyzer
