#!/usr/bin/env python3
"""Runs the fenced code blocks of Markdown files (README.md, docs/*.md) as tests.

Blocks by info string (its first word):
  python   all python blocks of one file run in order in ONE fresh interpreter, sharing their
           names (a later block may use what an earlier one defined); the working directory is a
           fresh temporary folder, so files a block writes land there.
  cpp/c++  each block is a complete program with main(): compiled with the project's compiler
           against the built library and its headers, then run (exit status 0 required).
           `cpp needs=<library>` (an optional library: diffcol_view, diffcol_cuda): linked and
           run only where the build has it (--have, --cuda-link); otherwise compiled with
           -fsyntax-only against the headers.
  other    (sh, text, console, json, cmake, none, ...) not executed.

A failure prints the file, the line of the block's opening fence and the error (compiler
messages and Python tracebacks carry the Markdown file's own line numbers). The exit status is
1 if any block failed, 0 otherwise.

Python 3.11 standard library only. Registered as CTest tests doc_blocks_<file> by
tests/CMakeLists.txt, which passes the compiler, include directories, flags and libraries.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
PYTHON_TAGS = {"python", "py", "python3"}
CPP_TAGS = {"cpp", "c++", "cxx"}


@dataclass
class Block:
    path: str        # as printed in messages
    fence_line: int  # 1-based line of the opening fence
    tag: str         # first word of the info string, lower case
    attrs: dict = field(default_factory=dict)  # key=value words after the tag
    code: str = ""

    @property
    def first_code_line(self) -> int:
        return self.fence_line + 1

    def where(self) -> str:
        return f"{self.path}:{self.fence_line}"


def parse_blocks(text: str, display_path: str) -> list[Block]:
    """The fenced code blocks of a Markdown text, in order. An unclosed fence is an error."""
    blocks: list[Block] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.group("indent"), m.group("fence"), m.group("info").strip()
        words = info.split()
        tag = words[0].lower() if words else ""
        attrs = {}
        for w in words[1:]:
            if "=" in w:
                k, v = w.split("=", 1)
                attrs[k] = v
            else:
                attrs[w] = ""
        start = i
        body: list[str] = []
        i += 1
        closed = False
        while i < len(lines):
            c = FENCE.match(lines[i])
            if c and c.group("fence")[0] == fence[0] and len(c.group("fence")) >= len(fence) \
                    and not c.group("info").strip():
                closed = True
                break
            line = lines[i]
            # remove the fence's indentation (blocks inside list items)
            if indent and line.startswith(indent):
                line = line[len(indent):]
            body.append(line)
            i += 1
        if not closed:
            raise SystemExit(f"{display_path}:{start + 1}: unclosed code fence")
        blocks.append(Block(display_path, start + 1, tag, attrs, "\n".join(body) + "\n"))
        i += 1
    return blocks


# ---------------------------------------------------------------------------------------------
# Python blocks: one interpreter per Markdown file.

PY_DRIVER = r'''
import json, linecache, sys, traceback
blocks = json.load(open(sys.argv[1], encoding="utf-8"))
scope = {"__name__": "__main__"}
for b in blocks:
    print(f"--- {b['where']} (python)", flush=True)
    # padded with blank lines so that tracebacks give the Markdown file's line numbers, and put
    # into linecache under the Markdown file's name so that they show the failing line
    source = "\n" * (b["first_line"] - 1) + b["code"]
    linecache.cache[b["path"]] = (len(source), None, source.splitlines(True), b["path"])
    try:
        code = compile(source, b["path"], "exec")
        exec(code, scope)
    except BaseException:
        sys.stdout.flush()
        etype, value, tb = sys.exc_info()
        # drop the driver's own frame
        traceback.print_exception(etype, value, tb.tb_next, file=sys.stderr)
        sys.stderr.flush()
        sys.exit(1)
    sys.stdout.flush()
    print(f"PASS {b['where']} (python)", flush=True)
'''


def run_python(blocks: list[Block], args, work: Path) -> list[tuple[Block, bool, str]]:
    if not blocks:
        return []
    if args.skip_python:
        return [(b, True, "not run (no Python module in this build)") for b in blocks]
    pydir = work / "python"
    pydir.mkdir(parents=True, exist_ok=True)
    (pydir / "driver.py").write_text(PY_DRIVER, encoding="utf-8")
    spec = [{"where": b.where(), "path": b.path, "first_line": b.first_code_line, "code": b.code}
            for b in blocks]
    (pydir / "blocks.json").write_text(json.dumps(spec), encoding="utf-8")
    run_dir = pydir / "cwd"
    run_dir.mkdir(exist_ok=True)
    env = dict(os.environ)
    if args.pythonpath:
        env["PYTHONPATH"] = os.pathsep.join([args.pythonpath] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("MPLBACKEND", "Agg")
    t0 = time.monotonic()
    try:
        proc = subprocess.run([args.python, str(pydir / "driver.py"), str(pydir / "blocks.json")],
                              cwd=run_dir, env=env, capture_output=True, text=True,
                              timeout=args.timeout)
        out, err, rc = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = f"timed out after {args.timeout} s"
        rc = -1
    elapsed = time.monotonic() - t0
    sys.stdout.write(out)
    passed = {line[5:].split(" (python)")[0] for line in out.splitlines() if line.startswith("PASS ")}
    results = []
    failed_reported = False
    for b in blocks:
        if b.where() in passed:
            results.append((b, True, ""))
        elif not failed_reported:
            results.append((b, False, err.strip() or f"interpreter exited with status {rc}"))
            failed_reported = True
        else:
            results.append((b, False, "not run (an earlier block of this file failed)"))
    if rc == 0 and all(ok for _, ok, _ in results):
        print(f"({len(blocks)} python blocks in {elapsed:.1f} s)")
    return results


# ---------------------------------------------------------------------------------------------
# C++ blocks: one program each.

def split_list(value: str | None) -> list[str]:
    """A '|'-separated list from CMake (empty entries dropped)."""
    if not value:
        return []
    return [v for v in value.split("|") if v]


def run_cpp(block: Block, index: int, args, work: Path) -> tuple[bool, str]:
    if not args.cxx:
        return True, "not run (no C++ compiler given)"
    if not re.search(r"\bint\s+main\s*\(", block.code):
        return False, "a ```cpp block must be a complete program with int main(); " \
                      "tag a fragment or a signature ```text instead"
    d = work / f"cpp{index}"
    d.mkdir(parents=True, exist_ok=True)
    src = d / "block.cpp"
    # #line: compiler messages point into the Markdown file
    src.write_text(f'#line {block.first_code_line} "{block.path}"\n' + block.code, encoding="utf-8")
    flags = ["-std=c++20"] + shlex.split(args.cxx_flags or "")
    flags += [f"-I{p}" for p in split_list(args.include_dirs)]
    flags += split_list(args.compile_options)
    flags += [f"-D{p}" for p in split_list(args.compile_definitions)]
    needs = block.attrs.get("needs", "")
    if needs == "diffcol_cuda":
        flags += [f"-I{p}" for p in split_list(args.cuda_include_dirs)]
    have = set(split_list(args.have)) | ({"diffcol_cuda"} if args.cuda_link else set())
    if needs and needs not in have:
        # an optional library this build lacks: check the code against the headers only
        cmd = [args.cxx] + flags + ["-fsyntax-only", str(src)]
        proc = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=args.timeout)
        if proc.returncode != 0:
            return False, "compile error (syntax check):\n" + proc.stderr.strip()
        return True, f"compiled only (-fsyntax-only: this build has no {needs})"
    needs_cuda = needs == "diffcol_cuda"
    exe = d / "block"
    link = (split_list(args.cuda_link) if needs_cuda else []) + split_list(args.link)
    cmd = [args.cxx] + flags + [str(src), "-o", str(exe)] + link
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=args.timeout)
    t_compile = time.monotonic() - t0
    if proc.returncode != 0:
        return False, "compile error:\n" + (proc.stderr.strip() or proc.stdout.strip()) + \
            "\ncommand: " + shlex.join(cmd)
    run_dir = d / "cwd"
    run_dir.mkdir(exist_ok=True)
    t0 = time.monotonic()
    try:
        run = subprocess.run([str(exe)], cwd=run_dir, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return False, f"the program ran longer than {args.timeout} s"
    t_run = time.monotonic() - t0
    if run.stdout:
        sys.stdout.write("".join("    " + l + "\n" for l in run.stdout.splitlines()))
    if run.returncode != 0:
        return False, f"the program exited with status {run.returncode}:\n" + \
            (run.stderr.strip() or "(no output on stderr)")
    return True, f"compile {t_compile:.1f} s, run {t_run:.2f} s"


# ---------------------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("markdown", nargs="+", help="Markdown files")
    ap.add_argument("--root", help="print paths relative to this folder (the source tree)")
    ap.add_argument("--python", default=sys.executable, help="interpreter for python blocks")
    ap.add_argument("--pythonpath", help="folder holding the built diffcol package")
    ap.add_argument("--skip-python", action="store_true", help="report python blocks as not run")
    ap.add_argument("--cxx", help="C++ compiler (C++ blocks are not run without it)")
    ap.add_argument("--cxx-flags", default="-O1", help="extra compiler flags (shell syntax)")
    ap.add_argument("--include-dirs", help="'|'-separated include folders")
    ap.add_argument("--compile-options", help="'|'-separated compile options (the library's interface)")
    ap.add_argument("--compile-definitions", help="'|'-separated preprocessor definitions")
    ap.add_argument("--link", help="'|'-separated libraries and link flags, in link order")
    ap.add_argument("--have", help="'|'-separated optional libraries this build has (blocks tagged "
                    "needs=<name> are only syntax-checked without theirs), e.g. diffcol_view")
    ap.add_argument("--cuda-include-dirs", help="'|'-separated include folders of the GPU library")
    ap.add_argument("--cuda-link", help="'|'-separated GPU library and its dependencies (else compile only)")
    ap.add_argument("--work-dir", help="keep the generated files here (default: a temporary folder)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per compile, program or python file")
    ap.add_argument("--list", action="store_true", help="list the blocks and exit")
    args = ap.parse_args()

    work_root = Path(args.work_dir) if args.work_dir else Path(tempfile.mkdtemp(prefix="doc_blocks_"))
    work_root.mkdir(parents=True, exist_ok=True)
    results: list[tuple[Block, bool, str]] = []
    try:
        for md in args.markdown:
            p = Path(md)
            shown = os.path.relpath(p, args.root) if args.root else str(p)
            blocks = parse_blocks(p.read_text(encoding="utf-8"), shown)
            if args.list:
                for b in blocks:
                    kind = "python" if b.tag in PYTHON_TAGS else "cpp" if b.tag in CPP_TAGS else "not run"
                    print(f"{b.where()}  {b.tag or '(none)'}  {kind}")
                continue
            work = work_root / re.sub(r"[^A-Za-z0-9_.-]", "_", shown)
            work.mkdir(parents=True, exist_ok=True)
            py = [b for b in blocks if b.tag in PYTHON_TAGS]
            cpp = [b for b in blocks if b.tag in CPP_TAGS]
            others = [b for b in blocks if b.tag not in PYTHON_TAGS | CPP_TAGS]
            print(f"== {shown}: {len(py)} python, {len(cpp)} cpp, {len(others)} not executed "
                  f"({', '.join(sorted({b.tag or '(none)' for b in others})) or '-'})", flush=True)
            results += run_python(py, args, work)
            for k, b in enumerate(cpp):
                print(f"--- {b.where()} (cpp)", flush=True)
                try:
                    ok, msg = run_cpp(b, k, args, work)
                except subprocess.TimeoutExpired:
                    ok, msg = False, f"compiling took longer than {args.timeout} s"
                print(f"{'PASS' if ok else 'FAIL'} {b.where()} (cpp){': ' + msg if ok and msg else ''}",
                      flush=True)
                if not ok:
                    print(msg, flush=True)
                results.append((b, ok, msg))
    finally:
        if not args.work_dir:
            shutil.rmtree(work_root, ignore_errors=True)
    if args.list:
        return 0
    failed = [(b, msg) for b, ok, msg in results if not ok]
    print(f"\n{len(results) - len(failed)} of {len(results)} executed blocks passed")
    for b, msg in failed:
        print(f"FAIL {b.where()} ({b.tag}): {msg}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
