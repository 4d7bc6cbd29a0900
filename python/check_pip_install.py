#!/usr/bin/env python3
"""`pip install .` into a fresh virtual environment, then README.md's Python quickstart from it.

Creates a venv with --system-site-packages (numpy and pybind11 from Debian) in a temporary
folder, installs the source tree into it with
    <venv>/bin/pip install --no-build-isolation --no-deps <root>
with DIFFCOL_CMAKE_BUILD_DIR=<build dir> (setup.py then builds only the module target there, no
second compile of the library) and pip offline (PIP_NO_INDEX), runs the first ```python block
after "## Quickstart (Python)" in README.md with <venv>/bin/python from another folder, and checks
that diffcol and its compiled module were imported from the venv (not from the build tree, which
a .pth file of scripts/setup.sh may also put on the path) and that the install left no
setuptools folders (build/lib.*, *.egg-info) in the source tree.

Registered as the CTest test python_pip_install (python/CMakeLists.txt). Exit status 0 on
success, 1 with the failing step's output otherwise.

usage: check_pip_install.py --python PY --root SRC --build-dir BUILD [--keep]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


class Failure(Exception):
    pass


def run(step: str, command: list, cwd: Path, env: dict) -> str:
    print(f"check_pip_install: {step}: {' '.join(str(c) for c in command)}", flush=True)
    result = subprocess.run([str(c) for c in command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        raise Failure(f"{step} failed (exit status {result.returncode}):\n{result.stdout}")
    return result.stdout


def readme_quickstart(readme: Path) -> str:
    text = readme.read_text()
    start = text.find("\n## Quickstart (Python)")
    if start < 0:
        raise Failure(f"{readme}: no '## Quickstart (Python)' section")
    match = re.search(r"^```python\n(.*?)^```", text[start:], re.S | re.M)
    if not match:
        raise Failure(f"{readme}: no ```python block in '## Quickstart (Python)'")
    return match.group(1)


def setuptools_leftovers(root: Path) -> list[Path]:
    found = list(root.glob("*.egg-info")) + list(root.glob("python/*.egg-info"))
    for pattern in ("lib.*", "temp.*", "bdist.*"):
        found += list(root.glob(f"build/{pattern}"))
    return sorted(found)


def check(python: Path, root: Path, build_dir: Path, work: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(PIP_NO_INDEX="1", PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               DIFFCOL_CMAKE_BUILD_DIR=str(build_dir))
    before = setuptools_leftovers(root)

    venv = work / "venv"
    run("create the venv", [python, "-m", "venv", "--system-site-packages", venv], work, env)
    pip_out = run("pip install", [venv / "bin" / "pip", "install", "--no-build-isolation",
                                  "--no-deps", root], work, env)
    if "Successfully installed diffcol" not in pip_out:
        raise Failure(f"pip install did not report 'Successfully installed diffcol':\n{pip_out}")

    left = [p for p in setuptools_leftovers(root) if p not in before]
    if left:
        raise Failure("pip install left setuptools folders in the source tree: "
                      + ", ".join(str(p) for p in left))

    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    script = elsewhere / "quickstart.py"
    script.write_text(readme_quickstart(root / "README.md") + "\n"
                      "import diffcol._diffcol\n"
                      "print('diffcol from', diffcol.__file__)\n"
                      "print('module from', diffcol._diffcol.__file__)\n")
    out = run("README quickstart", [venv / "bin" / "python", script], elsewhere, env)
    print(out, end="")
    site = Path(run("site-packages", [venv / "bin" / "python", "-c",
                                      "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                    elsewhere, env).strip()).resolve()
    for label in ("diffcol from", "module from"):
        line = next((l for l in out.splitlines() if l.startswith(label + " ")), None)
        if line is None:
            raise Failure(f"the quickstart printed no '{label}' line")
        where = Path(line[len(label) + 1:]).resolve()
        if site not in where.parents:
            raise Failure(f"{label} {where}: not the venv's installed copy (expected under {site})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--python", required=True, type=Path, help="interpreter the venv is made from")
    parser.add_argument("--root", required=True, type=Path, help="the source tree (pyproject.toml)")
    parser.add_argument("--build-dir", required=True, type=Path, help="configured CMake build tree")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="diffcol-pip-install-"))
    try:
        check(args.python, args.root.resolve(), args.build_dir.resolve(), work)
    except Failure as failure:
        print(f"check_pip_install: FAILED: {failure}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"check_pip_install: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("check_pip_install: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
