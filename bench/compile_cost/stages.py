#!/usr/bin/env python3
"""g++'s memory and time per planning stage, on the chains (or ResNet-50) of run.py.

sn::plan<M, S>() is five constant evaluations, each a constant of its own (include/staticnet/
plan.hpp): lowering, forward's buffers, backward's, their placement, and the Plan's assembly.
This compiles one translation unit per stage that stops there (it names that stage's constant,
which instantiates the stages before it) and reads g++'s -ftime-report: the memory its
"constant expression evaluation" allocated, in MiB (g++ frees none of it while one declaration
is evaluated, so it adds to the peak), and the compile's wall time and peak RSS. Each stage's own share is
the difference from the stage before.

Usage: bench/compile_cost/stages.py [--size 5000] [--cxx g++] [--out DIR]
Not a test: a tool for finding where the planner's compile cost goes.
"""
import argparse
import os
import re
import subprocess
import tempfile

from run import ROOT, source

STAGES = [
    ("lowering", "staticnet::lower<Model, Setup>()"),
    ("forward", "staticnet::detail::forward_v<Model, Setup>"),
    ("backward", "staticnet::detail::backward_v<Model, Setup>"),
    ("placement", "staticnet::detail::placed_v<Model, Setup>"),
    ("assembly", "staticnet::plan_v<Model, Setup>"),
]


def measure(cxx, path):
    cmd = ["/usr/bin/time", "-f", "TIME %e %M", cxx, "-std=c++20", "-I", os.path.join(ROOT, "include"),
           "-ftime-report", "-c", path, "-o", os.devnull]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"compile failed: {' '.join(cmd)}\n{r.stderr[-3000:]}")
    # " constant expression evaluation : usr ( %) sys ( %) wall ( %) 410M ( 82%)"
    ggc = re.search(r"constant expression evaluation\s*:.*\s(\d+)([kM])\s*\(\s*\d+%\)", r.stderr)
    mib = int(ggc.group(1)) / (1024 if ggc.group(2) == "k" else 1) if ggc else 0.0
    wall, kib = r.stderr.strip().splitlines()[-1].split()[1:]
    return float(wall), int(kib) / 1024.0, mib


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="5000", help="chain repetitions, or resnet50")
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--out", default=None, help="keep the generated sources here")
    a = ap.parse_args()
    n = a.size if a.size == "resnet50" else int(a.size)
    out = a.out or tempfile.mkdtemp(prefix="sn_compile_stages_")
    os.makedirs(out, exist_ok=True)
    # The model and setup, without the plan or main().
    prelude = source(n, with_plan=False).replace("int main() { return 0; }\n", "")
    print(f"| stage | wall s | peak MiB | constant evaluation so far, MiB | this stage, MiB |")
    print("|---|---:|---:|---:|---:|")
    before = 0.0
    for name, constant in STAGES:
        path = os.path.join(out, f"stage_{n}_{name}.cpp")
        with open(path, "w") as f:
            f.write(prelude + f"inline constexpr auto& stage = {constant};\nint main() {{ return 0; }}\n")
        wall, peak, ggc = measure(a.cxx, path)
        print(f"| {name} | {wall:.2f} | {peak:.0f} | {ggc:.0f} | {ggc - before:.0f} |", flush=True)
        before = ggc


if __name__ == "__main__":
    main()
