#!/usr/bin/env python3
"""Compile cost of sn::plan<...>() on long chains and on a ResNet-50-sized graph.

Generates translation units that plan a chain of N repetitions of `sn::Linear<64>, sn::ReLU`
followed by `sn::Linear<10>` (2N+1 layers), trained with Input<f32, 64>, Batch<32> and Adam,
with static_asserts on the plan; and a baseline per N: the same TU (header and model/setup
aliases) without the plan, so that the planning cost is the difference. A size named `resnet50`
is ResNet-50 instead (bottleneck blocks 3-4-6-3 with BatchNorm and residual sums, 3x224x224,
Batch<32>, Adam: 174 nodes). Compiles each with g++ and clang++ at the compilers' default
constexpr limits (--clang-steps N adds -fconstexpr-steps=N, as staticnet's CMake target does),
RUNS times each, under /usr/bin/time -f '%e %M %U %S', and prints a Markdown table of medians
(wall seconds, user+system CPU seconds, peak RSS MiB).

Usage: bench/compile_cost/run.py [--sizes 100,300,1000,5000,resnet50] [--runs 3]
                                 [--compilers g++,clang++] [--clang-steps N] [--out DIR]
                                 [--declaration inline|plain]
Not a test: run it by hand on a quiet machine (it prints the load average before and after).
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# How the TUs name the plan: as the README writes it (`inline`: one definition across files, and
# the Plan is emitted into the object only if the program reads it at run time), or as a plain
# namespace-scope reference (`--declaration plain`: an external definition, so every object file
# carries the whole Plan and the compiler's back end spends time writing it out).
DECLARATIONS = {
    "inline": "inline constexpr auto& p = sn::plan<Model, Setup>();",
    "plain": "constexpr auto& p = sn::plan<Model, Setup>();",
}
PLAN_DECLARATION = DECLARATIONS["inline"]


def resnet50_source(with_plan):
    lines = [
        "#include <staticnet/staticnet.hpp>",
        "namespace sn = staticnet;",
        "template <long C, long S>",
        "using Body = sn::Sequential<sn::Conv2d<C, sn::Kernel<1>, sn::Stride<S>, sn::NoBias>, sn::BatchNorm2d<>,",
        "    sn::ReLU, sn::Conv2d<C, sn::Kernel<3>, sn::Padding<1>, sn::NoBias>, sn::BatchNorm2d<>, sn::ReLU,",
        "    sn::Conv2d<4 * C, sn::Kernel<1>, sn::NoBias>, sn::BatchNorm2d<>>;",
        "template <long C, long S>",
        "using Down = sn::Sequential<sn::Residual<Body<C, S>, sn::Sequential<sn::Conv2d<4 * C, sn::Kernel<1>,",
        "    sn::Stride<S>, sn::NoBias>, sn::BatchNorm2d<>>>, sn::ReLU>;",
        "template <long C>",
        "using Same = sn::Sequential<sn::Residual<Body<C, 1>>, sn::ReLU>;",
        "using Model = sn::Sequential<sn::Conv2d<64, sn::Kernel<7>, sn::Stride<2>, sn::Padding<3>, sn::NoBias>,",
        "    sn::BatchNorm2d<>, sn::ReLU, sn::MaxPool2d<3, sn::Stride<2>, sn::Padding<1>>,",
        "    Down<64, 1>, Same<64>, Same<64>,",
        "    Down<128, 2>, Same<128>, Same<128>, Same<128>,",
        "    Down<256, 2>, Same<256>, Same<256>, Same<256>, Same<256>, Same<256>,",
        "    Down<512, 2>, Same<512>, Same<512>,",
        "    sn::GlobalAvgPool2d, sn::Linear<1000>>;",
        "using Setup = sn::Training<sn::Input<sn::f32, 3, 224, 224>, sn::Batch<32>, "
        "sn::Optimizer<sn::Adam>>;",
    ]
    if with_plan:
        lines += [
            PLAN_DECLARATION,
            "static_assert(p.error.ok());",
            "static_assert(p.layer_count() == 174);",
            # torchvision's resnet50: 25,557,032 parameters, 53,120 BatchNorm running statistics
            "static_assert(p.parameter_count == 25557032);",
            "static_assert(p.non_trainable_count == 53120);",
            "static_assert(p.output_shape == sn::Shape{32, 1000});",
        ]
    lines.append("int main() { return 0; }")
    return "\n".join(lines) + "\n"


def mobilenet_v1_source(with_plan):
    # samples/mlperf_tiny/mobilenet_v1.hpp's model at its reference setup (83 layers).
    lines = [
        "#include <staticnet/staticnet.hpp>",
        '#include "samples/mlperf_tiny/mobilenet_v1.hpp"',
        "namespace sn = staticnet;",
        "using Model = sn::samples::MobileNetV1;",
        "using Setup = sn::Training<sn::Input<sn::f32, 3, 96, 96>, sn::Batch<32>, "
        "sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>>;",
    ]
    if with_plan:
        lines += [
            PLAN_DECLARATION,
            "static_assert(p.error.ok());",
            "static_assert(p.layer_count() == 83);",
            "static_assert(p.output_shape == sn::Shape{32, 2});",
        ]
    lines.append("int main() { return 0; }")
    return "\n".join(lines) + "\n"


NAMED = {"resnet50": resnet50_source, "mobilenet_v1": mobilenet_v1_source}


def source(n, with_plan):
    if n in NAMED:
        return NAMED[n](with_plan)
    params = n * (64 * 64 + 64) + 64 * 10 + 10
    chain = ",\n".join(["    sn::Linear<64>, sn::ReLU"] * n)
    lines = [
        "#include <staticnet/staticnet.hpp>",
        "namespace sn = staticnet;",
        f"using Model = sn::Sequential<\n{chain},\n    sn::Linear<10>>;",
        "using Setup = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<32>, "
        "sn::Optimizer<sn::Adam>>;",
    ]
    if with_plan:
        lines += [
            PLAN_DECLARATION,
            "static_assert(p.error.ok());",
            f"static_assert(p.layer_count() == {2 * n + 1});",
            "static_assert(p.output_shape == sn::Shape{32, 10});",
            f"static_assert(p.parameter_count == {params});",
            f"static_assert(p.footprint.weights.count == sn::align_up(4 * {params}));",
            "static_assert(p.footprint.optimizer_state.count == 2 * p.footprint.weights.count);",
            # training keeps every Linear's 32x64 f32 input (each ReLU output, in place) for
            # backward: n such tensors, plus a few gradients in flight
            f"static_assert(p.footprint.activations.count >= {n} * 32 * 64 * 4);",
            f"static_assert(p.footprint.activations.count <= {n + 8} * 32 * 64 * 4);",
        ]
    lines.append("int main() { return 0; }")
    return "\n".join(lines) + "\n"


def layers(n):
    return {"resnet50": 174, "mobilenet_v1": 83}[n] if n in NAMED else 2 * n + 1


class CompileFailed(Exception):
    pass


def compile_once(cxx, path, obj, keep_going=False, clang_steps=None):
    cmd = ["/usr/bin/time", "-f", "%e %M %U %S", cxx, "-std=c++20", "-I", os.path.join(ROOT, "include"),
           "-I", ROOT, "-c", path, "-o", obj]
    if "clang" in cxx and clang_steps:
        cmd.insert(4, f"-fconstexpr-steps={clang_steps}")
    r = subprocess.run(cmd, capture_output=True, text=True)
    last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    if r.returncode != 0:
        errors = [l for l in r.stderr.splitlines() if "error:" in l]
        reason = errors[0].split("error:", 1)[1].strip() if errors else "?"
        if keep_going:
            raise CompileFailed(f"{reason} (after {last.split()[0]} s, {int(last.split()[1]) // 1024} MiB)")
        sys.stderr.write(r.stderr[-4000:])
        raise SystemExit(f"compile failed: {' '.join(cmd)}")
    wall, kib, user, system = last.split()
    return float(wall), int(kib) / 1024.0, " ".join(cmd[3:]), float(user) + float(system)


def print_table(args, variants, column):
    """For each of args.sizes ("resnet50" or a chain's pair count), compiles each variant (label,
    make(base source) -> source) args.runs times with args.cxx and prints a Markdown row of medians
    (wall seconds, peak RSS MiB), or the compiler's reason where it fails; `column` heads the
    labels."""
    print(f"load average before: {loadavg()}; {version(args.cxx)}")
    print(f"| model | {column} | wall s | peak RSS MiB |")
    print("|---|---|---:|---:|")
    with tempfile.TemporaryDirectory() as work:
        for size in args.sizes.split(","):
            n = size if size in NAMED else int(size)
            name = {"resnet50": "ResNet-50", "mobilenet_v1": "MobileNetV1"}.get(
                n, f"chain of {layers(n)} layers")
            base = source(n, with_plan=True)
            for label, make in variants:
                path = os.path.join(work, "tu.cpp")
                with open(path, "w") as f:
                    f.write(make(base))
                walls, rss = [], []
                try:
                    for _ in range(args.runs):
                        wall, mib, _, _ = compile_once(args.cxx, path, os.path.join(work, "tu.o"),
                                                       keep_going=True)
                        walls.append(wall)
                        rss.append(mib)
                except CompileFailed as failed:
                    print(f"| {name} | {label} | fails: {failed} | |", flush=True)
                    continue
                print(f"| {name} | {label} | {statistics.median(walls):.2f} | "
                      f"{statistics.median(rss):.0f} |", flush=True)
    print(f"load average after: {loadavg()}")


def version(cxx):
    return subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[0]


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100,300,1000,5000,resnet50")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--compilers", default="g++,clang++")
    ap.add_argument("--out", default=None, help="keep the generated sources here")
    ap.add_argument("--declaration", choices=list(DECLARATIONS), default="inline",
                    help="how the TUs name the plan (see DECLARATIONS)")
    ap.add_argument("--clang-steps", type=int, default=None,
                    help="pass -fconstexpr-steps=N to clang (default: clang's own limit)")
    ap.add_argument("--keep-going", action="store_true",
                    help="report a failing compile in the table instead of stopping")
    a = ap.parse_args()
    global PLAN_DECLARATION
    PLAN_DECLARATION = DECLARATIONS[a.declaration]
    out = a.out or tempfile.mkdtemp(prefix="sn_compile_cost_")
    os.makedirs(out, exist_ok=True)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"machine: {platform.node()}, nproc {os.cpu_count()}, CPU {cpu}")
    for cxx in a.compilers.split(","):
        print(f"{cxx}: {version(cxx)}")
    print(f"load average before: {loadavg()}")
    rows = []
    for cxx in a.compilers.split(","):
        for n in [s if s in NAMED else int(s) for s in a.sizes.split(",")]:
            res = {}
            for kind in ("baseline", "plan"):
                path = os.path.join(out, f"chain_{n}_{kind}.cpp")
                with open(path, "w") as f:
                    f.write(source(n, kind == "plan"))
                try:
                    runs = [compile_once(cxx, path, os.path.join(out, f"chain_{n}_{kind}_{cxx}.o"),
                                         a.keep_going, a.clang_steps) for _ in range(a.runs)]
                except CompileFailed as e:
                    res = None
                    print(f"  {cxx} N={n} {kind}: FAILS: {e}", flush=True)
                    rows.append((cxx, n, layers(n), f"fails: {e}", loadavg()))
                    break
                res[kind] = (statistics.median(r[0] for r in runs),
                             statistics.median(r[1] for r in runs), [r[0] for r in runs],
                             statistics.median(r[3] for r in runs))
                cmd = runs[0][2]
            if res is None:
                continue
            b, p = res["baseline"], res["plan"]
            rows.append((cxx, n, layers(n), p[0], p[1], b[0], b[1], p[0] - b[0], p[1] - b[1],
                         p[2], loadavg(), p[3], b[3]))
            print(f"  {cxx} N={n}: plan {p[0]:.2f} s {p[1]:.0f} MiB cpu {p[3]:.2f} s (runs {p[2]}), "
                  f"baseline {b[0]:.2f} s {b[1]:.0f} MiB, load {loadavg()}  [{cmd}]", flush=True)
    print(f"load average after: {loadavg()}")
    print()
    print("| compiler | repetitions | layers | plan: wall s | plan: CPU s | plan: peak MiB "
          "| baseline: wall s | baseline: CPU s | baseline: peak MiB | planning: wall s "
          "| planning: MiB | plan runs, wall s | load after |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        if len(r) == 5:
            print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | | | | | | | | | {r[4]} |")
            continue
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.2f} | {r[11]:.2f} | {r[4]:.0f} | {r[5]:.2f} | "
              f"{r[12]:.2f} | {r[6]:.0f} | {r[7]:.2f} | {r[8]:.0f} | "
              f"{', '.join(f'{x:.2f}' for x in r[9])} | {r[10]} |")


if __name__ == "__main__":
    main()
