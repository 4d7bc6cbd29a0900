#!/usr/bin/env python3
"""Checks the AVX2 clones of the library (src/util/target_clones.hpp) for calls into baseline code of
their own object file.

GCC knows the register use of a helper defined in the same file, may keep a 256-bit register live
across a call to it, and then cannot clear the upper halves (vzeroupper) before the call; on Intel
cores every SSE instruction of the helper then pays the AVX-SSE transition penalty. Calls into
other object files are safe (the compiler assumes the ABI there, so no vector register is live).

usage: check_target_clones.py [--objdump PATH] [--expect-clones] LIBRARY_OR_OBJECT...
Exit status 1 lists each offending call; with --expect-clones, finding no clone at all also fails
(the Release build must have them).
"""
import argparse
import re
import subprocess
import sys

CLONE = "[clone .arch_x86_64_v3]"
FUNC = re.compile(r"^[0-9a-f]+ <(.+)>:$")
MEMBER = re.compile(r"^(\S+):\s+file format ")
CALL = re.compile(r"^\s*[0-9a-f]+:\s+call\S*\s+(?:[0-9a-f]+\s+<(.+)>)?")
RELOC = re.compile(r"^\s*[0-9a-f]+: R_X86_64_(?:PLT32|PC32)\s+(.+?)(?:[-+]0x[0-9a-f]+)?$")
OFFSET = re.compile(r"\+0x[0-9a-f]+$")


def scan(lines):
    """Yields (member, defined names, [(caller, target)]) per object file."""
    member, defined, calls = None, set(), []
    func, pending = None, None  # pending: (caller, target) of the last call, until its relocation line
    for line in lines:
        m = RELOC.match(line)
        if m and pending is not None:  # the call's real target
            calls.append((pending[0], m.group(1)))
            pending = None
            continue
        if pending is not None:  # no relocation: resolved within its section
            calls.append(pending)
            pending = None
        m = MEMBER.match(line)
        if m:
            if member is not None:
                yield member, defined, calls
            member, defined, calls, func = m.group(1), set(), [], None
            continue
        m = FUNC.match(line)
        if m:
            func = m.group(1)
            defined.add(func)
            continue
        m = CALL.match(line)
        if m and func is not None and CLONE in func:
            pending = (func, OFFSET.sub("", m.group(1) or ""))
    if pending is not None:
        calls.append(pending)
    if member is not None:
        yield member, defined, calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--objdump", default="objdump")
    ap.add_argument("--expect-clones", action="store_true")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    out = subprocess.run([args.objdump, "-dr", "-C", "--no-show-raw-insn", *args.files], check=True,
                         capture_output=True, text=True).stdout
    clones, bad = 0, []
    for member, defined, calls in scan(out.splitlines()):
        clones += sum(1 for f in defined if CLONE in f)
        for caller, target in calls:
            if not target or CLONE in target or target.startswith(caller.replace(CLONE, "").strip()):
                continue  # another clone, or a part of the caller itself
            if target in defined or target.startswith("."):  # baseline code of this file
                bad.append(f"{member}: {caller}\n    calls {target}")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} call(s) from an AVX2 clone into baseline code of its own file "
              "(make the helper [[gnu::always_inline]] or a clone; see src/util/target_clones.hpp)")
        return 1
    if args.expect_clones and clones == 0:
        print("no AVX2 clone found, but this build should have them")
        return 1
    print(f"{clones} AVX2 clone(s), no call into baseline code of their own files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
