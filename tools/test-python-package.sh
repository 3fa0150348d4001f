#!/bin/sh
# The Python client as a package (clients/python/pyproject.toml), as `make test` checks it: a wheel built from
# a copy of clients/python, installed into a fresh virtual environment, imported from another directory (the
# environment's copy, not the source tree's), and the client's tests run again against that installation.
# No index and no network: PYTHON's own pip, setuptools and wheel (Debian's python3-pip, python3-setuptools,
# python3-wheel; `make deps` installs them) build the wheel; `pip install ./clients/python` in a virtual
# environment fetches the same build tools from PyPI instead. Usage: tools/test-python-package.sh PYTHON
# BIN-DIR (BIN-DIR: gestured and gesturectl, and where the environment is made).
set -eu
python=$1
bin=$2
top=$(cd "$(dirname "$0")/.." && pwd)
work=$bin/python-package
rm -rf "$work"
mkdir -p "$work"
"$python" -m venv "$work/venv"
cp -R "$top/clients/python" "$work/source"
"$python" -m pip --quiet wheel --no-deps --no-build-isolation --no-index -w "$work/wheel" "$work/source"
wheel=$(ls "$work"/wheel/gestured-*-py3-none-any.whl)
"$work/venv/bin/python" -m pip --quiet install --no-index "$wheel"
# What the wheel holds: the module and its metadata, no tests, no examples.
"$work/venv/bin/python" - "$wheel" <<'PY'
import sys, zipfile
names = sorted(zipfile.ZipFile(sys.argv[1]).namelist())
modules = [n for n in names if not n.split("/")[0].endswith(".dist-info")]
assert modules == ["gestured.py"], f"the wheel holds {modules}, not just gestured.py"
PY
installed=$(cd / && "$work/venv/bin/python" -c 'import gestured; print(gestured.__file__)')
case $installed in
    "$work/venv/"*) ;;
    *) echo "tools/test-python-package.sh: import gestured found $installed, not the environment's" >&2; exit 1 ;;
esac
echo "test-python-package: $(basename "$wheel") installed in a fresh virtual environment: $installed"
cd "$top"
GESTURED_BIN=$bin GESTURED_EXPECT_INSTALLED=$work/venv "$work/venv/bin/python" -m unittest discover -s clients/python -t clients/python
