#!/usr/bin/env python3
"""Checks run_doc_blocks.py on fixtures: passing blocks pass, and each kind of failure (a python
exception, a C++ program's exit status, a fragment, a compile error) fails the file and names the
fixture and the line of the block's fence. The arguments after the script name are passed on to
run_doc_blocks.py (compiler, include folders, ...). Python 3.11 standard library only."""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "run_doc_blocks.py"
FIXTURES = HERE / "fixtures"


def run(name: str, extra: list[str]) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, str(RUNNER), str(FIXTURES / name), "--root", str(FIXTURES)] + extra,
                          capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stdout + proc.stderr


def main() -> int:
    extra = sys.argv[1:]
    problems = []

    rc, out = run("passing.md", extra)
    if rc != 0 or "3 of 3 executed blocks passed" not in out:
        problems.append(f"passing.md: expected 3 passing blocks and status 0, got {rc}:\n{out}")

    rc, out = run("failing_python.md", extra)
    for want in ("FAIL failing_python.md:7 (python)", 'File "failing_python.md", line 9',
                 "the fixture's deliberate failure", "FAIL failing_python.md:12 (python): not run"):
        if want not in out:
            problems.append(f"failing_python.md: missing {want!r}")
    if rc != 1:
        problems.append(f"failing_python.md: status {rc}, expected 1")

    rc, out = run("failing_cpp.md", extra)
    for want in ("FAIL failing_cpp.md:5 (cpp): the program exited with status 1",
                 "FAIL failing_cpp.md:11 (cpp): a ```cpp block must be a complete program",
                 "FAIL failing_cpp.md:17 (cpp): compile error", "failing_cpp.md:18:"):
        if want not in out:
            problems.append(f"failing_cpp.md: missing {want!r}")
    if rc != 1:
        problems.append(f"failing_cpp.md: status {rc}, expected 1")

    if problems:
        print("\n\n".join(problems))
        print(f"\nlast output:\n{out}")
        return 1
    print("run_doc_blocks.py passes good blocks and reports every kind of failure with its line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
