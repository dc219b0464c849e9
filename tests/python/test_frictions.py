"""Importing the module (numpy, the Python it was built for), its log lines, and one-line errors
of Python policies' parameters (docs/python.md)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import schedlab
from conftest import EXAMPLES, cli

PACKAGE = Path(schedlab.__file__).parent


def python(code, *, env=None, path=None):
    """Runs `code` in a fresh interpreter of this Python with the package at `path`."""
    environ = dict(os.environ, **(env or {}))
    environ["PYTHONPATH"] = str(path or PACKAGE.parent)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=environ, cwd=path or PACKAGE.parent)


def test_import_without_numpy_fails_at_once_with_one_line():
    done = python("import sys\nsys.modules['numpy'] = None\nimport schedlab\n")
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: schedlab needs numpy, which this Python (")
    assert last.endswith("cannot import: pip install numpy")


def test_import_by_another_python_names_the_python_it_was_built_for(tmp_path):
    # The package as another Python's build would leave it: a core tagged for CPython 3.99.
    package = tmp_path / "schedlab"
    package.mkdir()
    shutil.copy(PACKAGE / "__init__.py", package)
    core = next(PACKAGE.glob("_schedlab.*"))
    shutil.copy(core, package / "_schedlab.cpython-399-x86_64-linux-gnu.so")
    done = python("import schedlab", path=tmp_path)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    this = f"Python {sys.version_info[0]}.{sys.version_info[1]}"
    assert last.startswith("ImportError: schedlab was built for Python 3.99 "
                           "(_schedlab.cpython-399-x86_64-linux-gnu.so in "), last
    assert f"this is {this} ({sys.executable})" in last


SWF = "import schedlab\nschedlab.read_trace('{}')\n"


def test_log_lines_print_nowhere_unless_asked(source_dir):
    read = SWF.format(source_dir / "traces" / "nasa-ipsc-1993-week1.swf.gz")
    quiet = python(read)
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stdout == "" and quiet.stderr == ""
    asked = python(read.replace("\nschedlab.read", "\nschedlab.set_log_level('info')\n"
                                "schedlab.read"))
    assert "detected format 'swf'" in asked.stdout + asked.stderr
    by_environment = python(read, env={"SCHEDLAB_LOG": "info"})
    assert "detected format 'swf'" in by_environment.stdout + by_environment.stderr
    try:
        schedlab.set_log_level("loud")
        raise AssertionError("set_log_level accepted 'loud'")
    except schedlab.InputError as error:
        assert (error.field, error.value) == ("log_level", "loud")


def test_python_policy_parameter_errors_are_one_line(tmp_path):
    policy = f"py:{EXAMPLES}/smallest_first.py:SmallestFirst"
    done = cli("run", "-t", "traces/philly-6214e9.csv", "-c", "32x8", "-p", policy,
               "--param", "blocking=maybe", "-o", tmp_path / "out", check=False)
    assert done.returncode == 2
    assert done.stderr == (f"--policy {policy}: ValueError: parameter blocking=maybe: "
                           "expected true or false\n")
    assert not (tmp_path / "out").exists()
    from smallest_first import SmallestFirst
    try:
        schedlab.run(schedlab.Trace.from_columns(id=["a"], submit_time=[0], gpus=[1],
                                                 duration=[1]),
                     "1x4:A100", SmallestFirst, {"blocking": "maybe"})
        raise AssertionError("blocking=maybe was accepted")
    except schedlab.InputError as error:
        assert error.message == ("--policy py:smallest_first.SmallestFirst: ValueError: "
                                 "parameter blocking=maybe: expected true or false")


def test_policies_with_python_file_lists_that_files_classes(tmp_path):
    policies = tmp_path / "two.py"
    policies.write_text(
        "class First:\n    \"\"\"The first.\"\"\"\n    def schedule(self, ctx, decisions):\n"
        "        pass\n\nclass Second:\n    \"\"\"The second.\"\"\"\n"
        "    def __init__(self, depth=3):\n        self.depth = depth\n"
        "    def schedule(self, ctx, decisions):\n        pass\n\nclass Helper:\n    pass\n")
    listed = cli("policies", "--python", policies).stdout
    assert f"py:{policies}:First" in listed and "The first. [python]" in listed
    assert f"py:{policies}:Second" in listed and "--param depth=3" in listed
    assert "Helper" not in listed
