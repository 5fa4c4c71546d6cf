#!/usr/bin/env python3
"""Compile cost of gradient checkpointing (Checkpoint<P>, include/staticnet/checkpointing.hpp).

For ResNet-50 (run.py's, Batch<32>, Adam) and run.py's chain of N Linear+ReLU pairs, compiles the
plan and its static_asserts (run.py's TU) with the setup as it is, and with Checkpoint<Every<2>>,
Checkpoint<Sqrt> and Checkpoint<Auto<budget>> added (each checkpointed TU also asserts that the
plan recomputes something). Auto's budget is Sqrt's whole step, so it must checkpoint: its TU
plans Sqrt too (the Sqrt row's cost), then chooses its own cut set, and asserts that it fits and
recomputes no more than Sqrt. Each is compiled RUNS times with g++ at its default constexpr
limits, and
prints a Markdown table of medians (wall seconds, peak RSS MiB), or the compiler's reason where it
fails.

Usage: bench/compile_cost/checkpoint.py [--sizes resnet50,500] [--runs 3] [--cxx g++]
Not a test: run it by hand on a quiet machine.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (run.py's sources and timing)

POLICIES = ["None", "Every<2>", "Sqrt", "Auto"]


def with_policy(base, policy):
    if policy == "None":
        return base
    setup = "sn::Optimizer<sn::Adam>>;"
    assert setup in base
    if policy == "Auto":
        # Sqrt's setup, and Auto with Sqrt's whole step as its budget.
        start = base.index("using Setup = ")
        end = base.index(setup, start) + len(setup)
        sqrt = base[start:end].replace("using Setup", "using SqrtSetup").replace(
            setup, "sn::Optimizer<sn::Adam>, sn::Checkpoint<sn::Sqrt>>;")
        auto = base[start:end].replace(
            setup, "sn::Optimizer<sn::Adam>, sn::Checkpoint<sn::Auto<"
                   "sn::plan<Model, SqrtSetup>().footprint.total()>>>;")
        text = base[:start] + sqrt + "\n" + auto + base[end:]
    else:
        text = base.replace(
            setup, f"sn::Optimizer<sn::Adam>, sn::Checkpoint<sn::{policy}>>;", 1)
    # The TU's bounds on the activations are the unremedied plan's; a checkpointed plan asserts
    # that it recomputes something.
    lines = [line for line in text.rstrip("\n").split("\n") if "footprint.activations" not in line]
    main = lines.pop()
    checks = ["static_assert(p.recompute_flops() > 0);"]
    if policy == "Auto":
        checks += ["constexpr auto& by_sqrt = sn::plan<Model, SqrtSetup>();",
                   "static_assert(p.footprint.total() <= by_sqrt.footprint.total());",
                   "static_assert(p.recompute_flops() <= by_sqrt.recompute_flops());"]
    return "\n".join(lines + checks + [main]) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="resnet50,500")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cxx", default="g++")
    args = parser.parse_args()
    run.print_table(args, [(policy, (lambda base, policy=policy: with_policy(base, policy)))
                           for policy in POLICIES], "Checkpoint")


if __name__ == "__main__":
    main()
