#!/usr/bin/env python3
"""Compile cost of sn::fit<...>(device) (include/staticnet/fit.hpp) beside the plan alone.

For ResNet-50 (run.py's, Batch<32>, Adam) and run.py's chain of N Linear+ReLU pairs, compiles:
  plan         the plan and its static_asserts (run.py's TU);
  fit()/2      the same, and a static_assert on sn::fit for a device of the plan's bytes less a
               third of its activations: the setup as it is, then Accumulate<2> (two plans
               more), in one evaluation;
  fit_v/2      the same through sn::fit_v, each plan an evaluation of its own;
  fit()/ckpt   the plan at batch 1 too, and sn::fit for a device 256 B above that batch's
               bytes: every Accumulate<K> (K = 2, 4, ..., 32) fails (it holds the whole batch's
               input), then Checkpoint<Sqrt> at the setup's micro-batches and at each K, until one
               fits: the checkpointed plans, the costliest fit makes;
  fit_v/ckpt   the same through sn::fit_v;
each RUNS times with g++ at its default constexpr limits, and prints a Markdown table of medians
(wall seconds, peak RSS MiB), or the compiler's reason where it fails.

Usage: bench/compile_cost/fit.py [--sizes resnet50,300] [--runs 3] [--cxx g++]
Not a test: run it by hand on a quiet machine.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (run.py's sources and timing)

KINDS = ["plan", "fit()/2", "fit_v/2", "fit()/ckpt", "fit_v/ckpt"]


def with_fit(base, kind):
    lines = base.rstrip("\n").split("\n")
    main = lines.pop()  # "int main() ..."
    one = "using One = sn::Training<" + base.split("sn::Training<", 1)[1].split(">;", 1)[0] + ">;"
    one = one.replace("sn::Batch<32>", "sn::Batch<1>")
    staged = kind.startswith("fit_v")
    ask = (lambda device: f"sn::fit_v<Model, Setup, {device}>") if staged else \
        (lambda device: f"sn::fit<Model, Setup>({device})")
    if kind.endswith("/2"):
        lines += ["inline constexpr sn::Device half{p.footprint.total() - "
                  "sn::Bytes{p.footprint.activations.count / 3}, sn::Bytes{0}};",
                  f"static_assert({ask('half')}.remedy == sn::Remedy::accumulate);"]
    else:
        lines += [one,
                  "inline constexpr sn::Device tight{sn::plan<Model, One>().footprint.total() + "
                  "sn::Bytes{256}, sn::Bytes{0}};",
                  f"static_assert({ask('tight')}.remedy == sn::Remedy::checkpoint);"]
    return "\n".join(lines + [main]) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="resnet50,300")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cxx", default="g++")
    args = parser.parse_args()
    run.print_table(args, [(kind, (lambda base, kind=kind: base if kind == "plan"
                                   else with_fit(base, kind))) for kind in KINDS], "TU")


if __name__ == "__main__":
    main()
