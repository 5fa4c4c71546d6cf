#!/usr/bin/env python3
"""Compile cost of gradient checkpointing (detail::Checkpoint<P>, include/staticnet/checkpointing.hpp).

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
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (run.py's sources and timing)

POLICIES = ["None", "Every<2>", "Sqrt"]


def with_policy(base, policy):
    if policy == "None":
        return base
    setup = "sn::Optimizer<sn::Adam>>;"
    assert setup in base
    text = base.replace(
        setup, f"sn::Optimizer<sn::Adam>, sn::detail::Checkpoint<sn::detail::{policy}>>;", 1)
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
    print(f"load average before: {run.loadavg()}; {run.version(args.cxx)}")
    print("| model | Checkpoint | wall s | peak RSS MiB |")
    print("|---|---|---:|---:|")
    with tempfile.TemporaryDirectory() as work:
        for size in args.sizes.split(","):
            n = size if size == "resnet50" else int(size)
            name = "ResNet-50" if n == "resnet50" else f"chain of {run.layers(n)} layers"
            base = run.source(n, with_plan=True)
            for policy in POLICIES:
                path = os.path.join(work, "tu.cpp")
                with open(path, "w") as f:
                    f.write(with_policy(base, policy))
                walls, rss = [], []
                try:
                    for _ in range(args.runs):
                        wall, mib, _, _ = run.compile_once(args.cxx, path,
                                                           os.path.join(work, "tu.o"),
                                                           keep_going=True)
                        walls.append(wall)
                        rss.append(mib)
                except run.CompileFailed as failed:
                    print(f"| {name} | {policy} | fails: {failed} | |", flush=True)
                    continue
                print(f"| {name} | {policy} | {statistics.median(walls):.2f} | "
                      f"{statistics.median(rss):.0f} |", flush=True)
    print(f"load average after: {run.loadavg()}")


if __name__ == "__main__":
    main()
