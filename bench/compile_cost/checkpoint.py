#!/usr/bin/env python3
"""Compile cost of gradient checkpointing (Checkpoint<P>, include/staticnet/checkpointing.hpp).

For ResNet-50 (run.py's, Batch<32>, Adam) and run.py's chain of N Linear+ReLU pairs, compiles the
plan and its static_asserts (run.py's TU) with the setup as it is, and with Checkpoint<Every<2>>
and Checkpoint<Sqrt> added (each checkpointed TU also asserts that the plan recomputes something),
each RUNS times with g++ at its default constexpr limits, and
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

POLICIES = ["None", "Every<2>", "Sqrt"]


def with_policy(base, policy):
    if policy == "None":
        return base
    setup = "sn::Optimizer<sn::Adam>>;"
    assert setup in base
    text = base.replace(
        setup, f"sn::Optimizer<sn::Adam>, sn::Checkpoint<sn::{policy}>>;", 1)
    # The TU's bounds on the activations are the unremedied plan's; a checkpointed plan asserts
    # that it recomputes something.
    lines = [line for line in text.rstrip("\n").split("\n") if "footprint.activations" not in line]
    main = lines.pop()
    return "\n".join(lines + ["static_assert(p.recompute_flops() > 0);", main]) + "\n"


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
