"""Shared fixtures of the Python module's tests: run by ctest (python_module) with PYTHONPATH
at the build tree's package, SCHEDLAB_EXE the schedlab executable and SCHEDLAB_SOURCE_DIR the
source tree."""
import os
import pathlib
import random
import subprocess
import sys

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("SCHEDLAB_SOURCE_DIR",
                                         pathlib.Path(__file__).resolve().parents[2]))
EXE = os.environ.get("SCHEDLAB_EXE", str(SOURCE_DIR / "build" / "schedlab"))
EXAMPLES = SOURCE_DIR / "examples" / "python"
sys.path.insert(0, str(EXAMPLES))

# The bundled traces and the clusters the demo and the gate replay them on.
BUNDLED = [
    ("traces/philly-6214e9.csv", "32x8:V100"),
    ("traces/itp-cluster10.csv", "2x8:A100"),
    ("traces/nasa-ipsc-1993-week1.swf.gz", "8x8:V100"),
    ("traces/alibaba-openb-pods-2000.csv.gz", "alibaba-openb:traces/alibaba-openb-gpu-nodes.csv"),
]


@pytest.fixture(scope="session")
def source_dir():
    return SOURCE_DIR


def cli(*args, check=True):
    """Runs the schedlab executable in the source tree; returns the completed process."""
    done = subprocess.run([EXE, *map(str, args)], cwd=SOURCE_DIR, capture_output=True,
                          text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"schedlab {' '.join(map(str, args))}: exit {done.returncode}\n"
                             f"{done.stderr}")
    return done


def random_columns(seed, jobs, max_gpus, types=None, walltimes=True):
    """A random trace as native columns: bursts of arrivals, sizes up to `max_gpus`, walltimes
    from exact to 3x over, some priorities and tenants."""
    rng = random.Random(seed)
    columns = {k: [] for k in ("id", "submit_time", "gpus", "duration", "walltime", "priority",
                               "tenant")}
    if types:
        columns["gpu_type"] = []
    t = 0.0
    for i in range(jobs):
        if rng.random() < 0.7:
            t += round(rng.expovariate(1 / 40.0), 3)
        duration = round(rng.uniform(1, 600), 3)
        columns["id"].append(f"j{i}")
        columns["submit_time"].append(t)
        columns["gpus"].append(rng.choice([1, 1, 1, 2, 2, 4, 8, max_gpus]))
        columns["duration"].append(duration)
        columns["walltime"].append(round(duration * rng.choice([1, 1.5, 3]), 3)
                                   if walltimes else None)
        columns["priority"].append(rng.randint(0, 3))
        columns["tenant"].append(rng.choice(["a", "b", "c"]))
        if types:
            columns["gpu_type"].append(rng.choice(types + [""]))
    return columns
