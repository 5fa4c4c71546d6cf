#!/usr/bin/env python3
"""Checks that the documentation cannot drift from the code.

README.md and docs/*.md are read as GitHub renders them. Three checks, each over the pages named
on the command line (default: all of them):

  cpp    every ```cpp block is compiled with the C++ compiler (-std=c++20 -fsyntax-only) against
         the source tree's headers, so a renamed name or a changed number fails here;
  cmake  every ```cmake block is configured (not built) as a project of its own against the
         installed package (--prefix): CMakeLists.txt is cmake_minimum_required(VERSION 3.25),
         project(doc LANGUAGES CXX), then the block; the files the block names (simple_cnn.hpp,
         main.cpp, ...) are copied in from tests/docs/fixtures/, else from the source tree;
  links  every relative link and image points at a file or folder that exists, every #anchor
         into a page at one of its headings, and README.md links every page of docs/.

A block that does not claim to compile (a compiler's error shown as text, a fragment) carries
on the line right before its fence

  <!-- not compiled: <reason> -->

and a block that builds on the block before it (of the same language, on the same page) carries

  <!-- compiled after the block above -->

and is compiled, or configured, concatenated with that block (and with whatever that block
follows). A C++ block without `#include <staticnet/staticnet.hpp>` gets it first, with
`namespace sn = staticnet;`; a block without main() is fine (syntax only). Errors name the page and
the line: the compiler's own messages point into the page through #line directives.

  check_docs.py --source SRC --work DIR [--cxx CXX] [--prefix PREFIX] [--generator G]
                [--make-program M] {cpp,cmake,links} [PAGE...]
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

NOT_COMPILED = re.compile(r"^<!--\s*not compiled:\s*(\S.*?)\s*-->$")
COMPILED_AFTER = re.compile(r"^<!--\s*compiled after the block above\s*-->$")
ANY_MARKER = re.compile(r"^\s*<!--\s*(not compiled|compiled after)")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`\s]*)")
CHECKED = {"cpp": "cpp", "c++": "cpp", "cmake": "cmake"}
STATICNET_INCLUDE = "#include <staticnet/staticnet.hpp>"
PRELUDE = STATICNET_INCLUDE + "\nnamespace sn = staticnet;\n"
# What a CMake block may name that the project then needs: headers and sources.
NAMED_FILE = re.compile(r"(?<![\w./${}-])([\w][\w./-]*\.(?:hpp|h|cpp|cc|cxx))\b")


class Block:
    def __init__(self, page, line, language, text, marker, reason):
        self.page = page          # the page's path, relative to the source tree
        self.line = line          # the fence's line, from 1
        self.language = language  # 'cpp', 'cmake' or another info string
        self.text = text          # the block's lines, the fence's indentation removed
        self.marker = marker      # None, 'not_compiled' or 'after'
        self.reason = reason      # the not-compiled marker's reason
        self.previous = None      # for 'after': the block this one follows

    def where(self):
        return f"{self.page}:{self.line}"

    def chain(self):
        """This block and those it follows, first to last."""
        blocks, b = [], self
        while b is not None:
            blocks.append(b)
            b = b.previous if b.marker == "after" else None
        return list(reversed(blocks))


def pages_of(source, names):
    if names:
        return names
    docs = os.path.join(source, "docs")
    found = ["README.md"]
    if os.path.isdir(docs):
        found += sorted(os.path.join("docs", f) for f in os.listdir(docs) if f.endswith(".md"))
    return found


def read_page(source, page):
    with open(os.path.join(source, page), encoding="utf-8") as f:
        return f.read().split("\n")


def parse(source, page, problems):
    """The page's fenced blocks; misplaced markers go to problems."""
    lines = read_page(source, page)
    blocks = []
    last_of = {}  # language -> the last block of that language on the page
    i = 0
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if not m:
            if ANY_MARKER.search(line) and not (
                    i + 1 < len(lines) and FENCE.match(lines[i + 1]) and
                    FENCE.match(lines[i + 1]).group(3).lower() in CHECKED):
                problems.append(f"{page}:{i + 1}: a marker must be the line right before the "
                                f"fence of a ```cpp or ```cmake block: {line.strip()}")
            i += 1
            continue
        indent, fence, info = m.group(1), m.group(2), m.group(3).lower()
        start = i
        body = []
        i += 1
        while i < len(lines):
            close = re.match(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$",
                             lines[i])
            if close:
                break
            text = lines[i]
            body.append(text[len(indent):] if text.startswith(indent) else text.lstrip())
            i += 1
        else:
            problems.append(f"{page}:{start + 1}: the block opened here is never closed")
        i += 1
        language = CHECKED.get(info, info)
        before = lines[start - 1].strip() if start > 0 else ""
        marker, reason = None, None
        if NOT_COMPILED.match(before):
            marker, reason = "not_compiled", NOT_COMPILED.match(before).group(1)
        elif COMPILED_AFTER.match(before):
            marker = "after"
        elif ANY_MARKER.search(before):
            problems.append(f"{page}:{start}: a marker is '<!-- not compiled: REASON -->' or "
                            f"'<!-- compiled after the block above -->': {before}")
        block = Block(page, start + 1, language, body, marker, reason)
        if language in ("cpp", "cmake"):
            if marker == "after":
                block.previous = last_of.get(language)
                if block.previous is None:
                    problems.append(f"{block.where()}: 'compiled after the block above', but no "
                                    f"```{language} block comes before it on the page")
                elif block.previous.marker == "not_compiled":
                    problems.append(f"{block.where()}: 'compiled after the block above', but the "
                                    f"block above ({block.previous.where()}) is not compiled")
            last_of[language] = block
        blocks.append(block)
    return blocks


def run(command, cwd=None):
    result = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, errors="replace")
    return result.returncode, result.stdout


def first_lines(text, n=40):
    lines = text.rstrip("\n").split("\n")
    return "\n".join(lines[:n]) + (f"\n... ({len(lines) - n} more lines)" if len(lines) > n else "")


# ---- cpp -----------------------------------------------------------------------------------

def cpp_source(source, block):
    chain = block.chain()
    whole = "\n".join("\n".join(b.text) for b in chain)
    out = [] if STATICNET_INCLUDE in whole else [PRELUDE]
    for b in chain:
        path = os.path.join(source, b.page).replace("\\", "/")
        out.append(f'#line {b.line + 1} "{path}"\n' + "\n".join(b.text) + "\n")
    return "".join(out)


def compile_cpp(args, block, work):
    name = re.sub(r"[^\w]", "_", block.page) + f"_{block.line}.cpp"
    path = os.path.join(work, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(cpp_source(args.source, block))
    command = [args.cxx, "-std=c++20", "-fsyntax-only"]
    for d in ("include", "codegen/kernels/include", "codegen/runtime/include",
              "codegen/emit/include", "."):
        command.append("-I" + os.path.normpath(os.path.join(args.headers, d)))
    if is_clang(args.cxx):
        command.append("-fconstexpr-steps=100000000")
    command.append(path)
    rc, out = run(command)
    return block, rc, out, command


_clang = {}


def is_clang(cxx):
    if cxx not in _clang:
        rc, out = run([cxx, "--version"])
        _clang[cxx] = rc == 0 and "clang" in out.lower()
    return _clang[cxx]


def check_cpp(args, pages, problems):
    blocks = []
    for page in pages:
        blocks += [b for b in parse(args.source, page, problems) if b.language == "cpp"]
    todo = [b for b in blocks if b.marker != "not_compiled"]
    os.makedirs(args.work, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda b: compile_cpp(args, b, args.work), todo))
    for block, rc, out, command in results:
        chain = block.chain()
        after = ("" if len(chain) == 1 else
                 " (after " + ", ".join(b.where() for b in chain[:-1]) + ")")
        if rc == 0:
            print(f"ok       {block.where()}{after}")
        else:
            problems.append(f"{block.where()}: this ```cpp block does not compile{after}, and "
                            f"carries no '<!-- not compiled: REASON -->' on the line before its "
                            f"fence\n  {' '.join(command)}\n{first_lines(out)}")
    for b in blocks:
        if b.marker == "not_compiled":
            print(f"skipped  {b.where()} (not compiled: {b.reason})")
    print(f"{len(todo)} C++ blocks compiled, {len(blocks) - len(todo)} marked not compiled")


# ---- cmake ---------------------------------------------------------------------------------

def fixture_of(source, name):
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
    for candidate in (os.path.join(here, os.path.basename(name)), os.path.join(source, name),
                      os.path.join(source, "samples", name)):
        if os.path.isfile(candidate):
            return candidate
    return None


def configure_cmake(args, block, problems):
    chain = block.chain()
    text = "\n".join("\n".join(b.text) for b in chain) + "\n"
    where = block.where()
    project = os.path.join(args.work, re.sub(r"[^\w]", "_", block.page) + f"_{block.line}")
    shutil.rmtree(project, ignore_errors=True)
    src, build = os.path.join(project, "src"), os.path.join(project, "build")
    os.makedirs(src)
    with open(os.path.join(src, "CMakeLists.txt"), "w", encoding="utf-8") as f:
        f.write("cmake_minimum_required(VERSION 3.25)\nproject(doc LANGUAGES CXX)\n")
        for b in chain:
            f.write(f"# {b.where()}\n" + "\n".join(b.text) + "\n")
    for name in sorted(set(NAMED_FILE.findall(text))):
        found = fixture_of(args.source, name)
        if found is None:
            problems.append(f"{where}: the ```cmake block names {name}, which neither "
                            f"tests/docs/fixtures/ nor the source tree holds")
            return
        os.makedirs(os.path.dirname(os.path.join(src, name)), exist_ok=True)
        shutil.copyfile(found, os.path.join(src, name))
    command = [args.cmake, "-S", src, "-B", build, f"-DCMAKE_PREFIX_PATH={args.prefix}",
               "-DSTATICNET_CUDA=OFF"]
    if args.generator:
        command += ["-G", args.generator]
    if args.make_program:
        command.append(f"-DCMAKE_MAKE_PROGRAM={args.make_program}")
    if args.cxx:
        command.append(f"-DCMAKE_CXX_COMPILER={args.cxx}")
    rc, out = run(command)
    if rc == 0:
        print(f"ok       {where}: configured against {args.prefix}")
    else:
        problems.append(f"{where}: this ```cmake block does not configure against the installed "
                        f"package, and carries no '<!-- not compiled: REASON -->' on the line "
                        f"before its fence\n  {' '.join(command)}\n{first_lines(out, 60)}")


def check_cmake(args, pages, problems):
    if not args.prefix or not os.path.isdir(args.prefix):
        problems.append(f"--prefix {args.prefix!r}: no installed staticnet there (the CTest "
                        f"fixture staticnet_installed makes it)")
        return
    blocks = []
    for page in pages:
        blocks += [b for b in parse(args.source, page, problems) if b.language == "cmake"]
    os.makedirs(args.work, exist_ok=True)
    done = 0
    for b in blocks:
        if b.marker == "not_compiled":
            print(f"skipped  {b.where()} (not compiled: {b.reason})")
            continue
        configure_cmake(args, b, problems)
        done += 1
    print(f"{done} CMake blocks configured, {len(blocks) - done} marked not compiled")


# ---- links ---------------------------------------------------------------------------------

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def slug(heading):
    """GitHub's anchor for a heading."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())  # a link: its text
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def prose_lines(lines, keep_code=False):
    """(number, line) outside fenced blocks, inline code removed unless keep_code."""
    fence = None
    for n, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(2)
            continue
        if fence is not None:
            if re.match(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$", line):
                fence = None
            continue
        yield n, line if keep_code else re.sub(r"(`+)(?:(?!\1).)+?\1", "", line)


def anchors(source, page, cache):
    if page not in cache:
        seen, found = {}, set()
        for _, line in prose_lines(read_page(source, page), keep_code=True):
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            s = slug(m.group(1))
            k = seen.get(s, 0)
            seen[s] = k + 1
            found.add(s if k == 0 else f"{s}-{k}")
        cache[page] = found
    return cache[page]


def check_links(args, pages, problems):
    root = os.path.realpath(args.source)
    cache, count, linked_from_readme = {}, 0, set()
    for page in pages:
        lines = read_page(args.source, page)
        for n, line in prose_lines(lines):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                    continue  # https:, mailto:
                count += 1
                path, _, fragment = target.partition("#")
                resolved = (os.path.join(args.source, page) if not path else
                            os.path.normpath(os.path.join(args.source, os.path.dirname(page),
                                                          path)))
                where = f"{page}:{n}: link {target}"
                if not os.path.realpath(resolved).startswith(root + os.sep):
                    problems.append(f"{where}: points outside the source tree")
                    continue
                if not os.path.exists(resolved):
                    problems.append(f"{where}: {os.path.relpath(resolved, args.source)} does not "
                                    f"exist")
                    continue
                if path.endswith("/") and not os.path.isdir(resolved):
                    problems.append(f"{where}: not a folder")
                relative = os.path.relpath(resolved, args.source)
                if page == "README.md":
                    linked_from_readme.add(relative)
                if fragment and relative.endswith(".md"):
                    if fragment not in anchors(args.source, relative, cache):
                        problems.append(f"{where}: {relative} has no heading whose anchor is "
                                        f"#{fragment}")
    if "README.md" in pages:
        for page in pages_of(args.source, []):
            if page.startswith("docs") and page not in linked_from_readme:
                problems.append(f"README.md: its table of contents does not link {page}")
    print(f"{count} relative links checked in {len(pages)} pages")


# ---- selftest ------------------------------------------------------------------------------

def selftest(args, _pages, problems):
    """The checker on tests/docs/selftest/: good.md must pass, bad.md fail for each reason."""
    import copy
    here = copy.copy(args)
    here.source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "selftest")
    expected = {
        "good.md": [],
        "bad.md": ["bad.md:4: 'compiled after the block above', but no ```cpp block comes before",
                   "bad.md:10: this ```cpp block does not compile",
                   "bad.md:19: a marker must be the line right before the fence",
                   "bad.md:21: link missing.md: missing.md does not exist",
                   "bad.md:21: link good.md#nowhere: good.md has no heading whose anchor is "
                   "#nowhere"],
    }
    for page, wanted in expected.items():
        found = []
        for check in (check_cpp, check_links):
            check(here, [page], found)
        parse(here.source, page, found)
        found = list(dict.fromkeys(found))
        for w in wanted:
            if not any(f.startswith(w) for f in found):
                problems.append(f"selftest: {page}: expected a problem starting {w!r}; found:\n  " +
                                "\n  ".join(f.split("\n")[0] for f in found))
        for f in found:
            if not any(f.startswith(w) for w in wanted):
                problems.append(f"selftest: {page}: unexpected problem: {f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", required=True, help="the staticnet source tree")
    parser.add_argument("--work", default=None, help="a scratch folder")
    parser.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--prefix", default=None, help="where staticnet is installed (cmake)")
    parser.add_argument("--generator", default=None)
    parser.add_argument("--make-program", default=None)
    parser.add_argument("--headers", default=None,
                        help="the source tree whose headers C++ blocks include (default: --source)")
    parser.add_argument("check", choices=["cpp", "cmake", "links", "selftest"])
    parser.add_argument("pages", nargs="*", help="pages relative to --source (default: all)")
    args = parser.parse_args()
    args.source = os.path.abspath(args.source)
    args.headers = os.path.abspath(args.headers or args.source)
    if args.work is None:
        args.work = os.path.join(os.getcwd(), "docs_work")
    args.work = os.path.abspath(os.path.join(args.work, args.check))
    pages = pages_of(args.source, args.pages)
    problems = []
    checks = {"cpp": check_cpp, "cmake": check_cmake, "links": check_links, "selftest": selftest}
    checks[args.check](args, pages, problems)
    # Markers are checked whichever check runs.
    if args.check == "links":
        for page in pages:
            parse(args.source, page, problems)
    for p in dict.fromkeys(problems):  # a page parsed twice reports a misplaced marker once
        print(f"error: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
