"""Shared fixtures of the diffcol pytest suite.

Run by CTest (test python_pytest) with PYTHONPATH=<build>/python and
DIFFCOL_PY_REFERENCE=<the reference_solver executable> (and DIFFCOL_CLI=<the diffcol program>
when it is built). By hand:
    PYTHONPATH=build/python DIFFCOL_PY_REFERENCE=build/python/diffcol_py_reference \\
        /usr/bin/python3 -m pytest -q python/tests
"""
import os

import pytest


@pytest.fixture(scope="session")
def reference_exe():
    path = os.environ.get("DIFFCOL_PY_REFERENCE", "")
    if not path or not os.path.isfile(path):
        pytest.skip("DIFFCOL_PY_REFERENCE is not set to the reference_solver executable (ctest sets it)")
    return path


@pytest.fixture(scope="session")
def cli_exe():
    path = os.environ.get("DIFFCOL_CLI", "")
    if not path or not os.path.isfile(path):
        pytest.skip("DIFFCOL_CLI is not set to the diffcol program (built with DIFFCOL_BUILD_APPS=ON)")
    return path
