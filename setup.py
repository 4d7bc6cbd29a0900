"""setuptools build of the diffcol Python package: CMake compiles the module, setuptools packs it.

`pip install .` (or `pip install --no-build-isolation .` offline, with Debian's setuptools,
wheel, pybind11 and numpy) configures the project in a temporary CMake build tree for the
interpreter that runs the build (DIFFCOL_PYTHON_EXECUTABLE), with the tests, benchmarks and the
command-line program off, builds the target diffcol_python (the Release library and the
module: minutes on a few cores) and puts python/diffcol/*.py next to the compiled
_diffcol<EXT_SUFFIX> in the wheel. The viewer library follows the CMake default: built when
three.js is in viewer/node_modules, otherwise diffcol.view raises RuntimeError.

Environment:
  DIFFCOL_CMAKE_BUILD_DIR  an existing, configured CMake build tree of this source tree: only the
                           target diffcol_python is brought up to date there and its module is
                           packed (no configure, no second compile of the library). Its module
                           must have been built for the same Python version (the extension
                           suffix is checked).
  DIFFCOL_CMAKE_ARGS       extra arguments for the configure step of the temporary tree
                           (split like a shell command line), e.g. "-DDIFFCOL_NATIVE=ON".
  CMAKE_BUILD_PARALLEL_LEVEL  parallel compile jobs (default: the number of CPUs).

setuptools' scratch folders (build/, *.egg-info) go to a temporary folder removed at exit: the
source tree's build/ is the usual CMake build tree.
"""

import atexit
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
MODULE_TARGET = "diffcol_python"


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(\s*diffcol\s+VERSION\s+([0-9][0-9.]*)", text)
    if not match:
        raise RuntimeError("setup.py: no 'project(diffcol VERSION x.y.z' in CMakeLists.txt")
    return match.group(1)


def run(command, **kwargs):
    print("setup.py: " + " ".join(shlex.quote(str(c)) for c in command), flush=True)
    subprocess.run([str(c) for c in command], check=True, **kwargs)


class CMakeBuild(build_ext):
    """Builds diffcol._diffcol with the project's CMake build instead of compiling sources."""

    def build_extension(self, ext):
        if self.inplace or getattr(self, "editable_mode", False):
            raise RuntimeError("setup.py: editable installs (pip install -e) are not supported: the "
                               "module would land in the source tree; use `pip install .`, or "
                               "build/python on the path (scripts/setup.sh's .pth file)")
        if shutil.which("cmake") is None:
            raise RuntimeError("setup.py: cmake not found (Debian: apt-get install cmake)")
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        reused = os.environ.get("DIFFCOL_CMAKE_BUILD_DIR")
        if reused:
            build_dir = Path(reused).resolve()
            if not (build_dir / "CMakeCache.txt").is_file():
                raise RuntimeError(f"setup.py: DIFFCOL_CMAKE_BUILD_DIR={reused} is not a configured "
                                   "CMake build tree (no CMakeCache.txt)")
        else:
            build_dir = Path(self.build_temp).resolve() / "cmake"
            command = ["cmake", "-S", ROOT, "-B", build_dir,
                       "-DCMAKE_BUILD_TYPE=Release",
                       f"-DDIFFCOL_PYTHON_EXECUTABLE={sys.executable}",
                       "-DDIFFCOL_BUILD_PYTHON=ON",
                       "-DDIFFCOL_BUILD_TESTS=OFF",
                       "-DDIFFCOL_BUILD_BENCH=OFF",
                       "-DDIFFCOL_BUILD_APPS=OFF",
                       "-DDIFFCOL_SANITIZE=OFF",
                       "-DDIFFCOL_CUDA=OFF"]
            if not os.environ.get("CMAKE_GENERATOR") and shutil.which("ninja"):
                command += ["-G", "Ninja"]
            command += shlex.split(os.environ.get("DIFFCOL_CMAKE_ARGS", ""))
            run(command)
        build = ["cmake", "--build", build_dir, "--target", MODULE_TARGET]
        if not os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL"):
            build += ["--parallel", str(os.cpu_count() or 1)]
        run(build)

        package_dir = build_dir / "python" / "diffcol"
        built = package_dir / ("_diffcol" + suffix)
        if not built.is_file():
            found = sorted(p.name for p in package_dir.glob("_diffcol*")) if package_dir.is_dir() else []
            raise RuntimeError(
                f"setup.py: {built} was not built for {sys.executable} (extension suffix {suffix}); "
                + (f"the build tree has {', '.join(found)}: it was configured for another Python "
                   "(its DIFFCOL_PYTHON_EXECUTABLE)" if found else
                   "see CMake's warnings above (python3-dev, python3-pybind11 for this interpreter)"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


scratch = tempfile.mkdtemp(prefix="diffcol-setuptools-")
atexit.register(shutil.rmtree, scratch, ignore_errors=True)

setup(
    version=project_version(),
    packages=["diffcol"],
    package_dir={"diffcol": "python/diffcol"},
    ext_modules=[Extension("diffcol._diffcol", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
    options={"build": {"build_base": os.path.join(scratch, "build")},
             "egg_info": {"egg_base": scratch}},
)
