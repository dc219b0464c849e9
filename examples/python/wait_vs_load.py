"""Notebook-style: mean wait against offered load for several policies, one plot.

Replays the bundled philly-6214e9 trace with its arrivals compressed by a load factor (factor 2
submits every job at half its submit time: twice the load), for the built-in fifo, sjf and
easy-backfill and the Python smallest-first of this folder, and saves the plot:

    PYTHONPATH=build/python python3 examples/python/wait_vs_load.py --out wait_vs_load.png

Each load's runs go to threads at once (schedlab.compare): the engine runs without the GIL.
"""
import argparse
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt

import schedlab

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from smallest_first import SmallestFirst  # noqa: E402  (this folder's Python policy)

SOURCE = pathlib.Path(__file__).resolve().parents[2]


def with_load(trace, factor):
    """The trace with every submit time divided by `factor`."""
    columns = dict(trace.columns)
    columns["submit_time"] = (columns["submit_time"] / factor).round(3)
    return schedlab.Trace.from_columns(columns, name=f"{trace.path} x{factor}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default=str(SOURCE / "traces" / "philly-6214e9.csv"))
    parser.add_argument("--cluster", default="32x8:V100")
    parser.add_argument("--loads", default="0.5,1,1.5,2,3", help="load factors")
    parser.add_argument("--out", default="wait_vs_load.png")
    args = parser.parse_args()

    trace = schedlab.read_trace(args.trace)
    loads = [float(x) for x in args.loads.split(",")]
    policies = ["fifo", "sjf", "easy-backfill", SmallestFirst]
    waits = {}  # policy label -> mean wait (h) per load
    for load in loads:
        comparison = schedlab.compare(with_load(trace, load), args.cluster, policies, seed=1)
        for label, result in comparison.results.items():
            waits.setdefault(label, []).append(result.summary["wait_s"]["mean"] / 3600)
        row = "  ".join(f"{label}={waits[label][-1]:.2f} h" for label in waits)
        print(f"load x{load:g}: {row}")

    figure, axes = plt.subplots(figsize=(6, 4))
    for label, values in waits.items():
        axes.plot(loads, values, marker="o", label=label.removeprefix("py:"))
    axes.set_xlabel("load factor (arrivals compressed)")
    axes.set_ylabel("mean wait (hours)")
    axes.set_title(f"{pathlib.Path(args.trace).name} on {args.cluster}")
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
