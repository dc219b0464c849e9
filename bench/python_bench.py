"""Python policies' speed (`make bench`, after schedlab_bench; docs/performance.md).

Measures, with the schedlab package of a build tree:
- the Python FIFO of examples/python/fifo.py on the bundled philly-6214e9 trace (32x8:V100):
  the run alone, and the whole `schedlab run -p py:...` process, against the 3.2 s of
  Tiresias' own FIFO simulator on the same trace (measured on this machine kind);
- the Python FIFO and the Python EASY backfilling against the built-in ones on a seeded
  synthetic trace of --jobs jobs (100,000 by default) on 1,024 GPUs: wall time, jobs/s, ratio;
- the cost of a call across the language boundary: per hook call (the engine calling Python)
  and per context query and decision (Python calling the engine).
Every run is timed best of --repeat; peak memory is this process's resident maximum.
"""
import argparse
import os
import pathlib
import resource
import subprocess
import sys
import time

TIRESIAS_FIFO_S = 3.2  # Tiresias' FIFO simulator on philly-6214e9, from the issue's measurement


def best_of(repeat, fn):
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - started)
    return min(times), value


class CountingFifo:
    """The Python FIFO, counting the engine's calls into it and its calls into the engine."""

    def __init__(self):
        self.hook_calls = 0
        self.engine_calls = 0

    def schedule(self, ctx, decisions):
        self.hook_calls += 1
        queue = ctx.queue
        self.engine_calls += 1
        while queue:
            self.engine_calls += 3
            if not decisions.try_start(queue.head):
                return


class Probe:
    """Times context queries and decisions from inside one schedule() call."""

    results = {}

    def schedule(self, ctx, decisions):
        n = 200_000
        job = ctx.queue.head
        for name, fn in (("ctx.now", lambda: ctx.now),
                         ("ctx.queue.head", lambda: ctx.queue.head),
                         ("ctx.job(j).gpus", lambda: ctx.job(job).gpus),
                         ("ctx.cluster.free_gpus", lambda: ctx.cluster.free_gpus),
                         ("decisions.find_placement(j)", lambda: decisions.find_placement(job))):
            started = time.perf_counter()
            for _ in range(n):
                fn()
            Probe.results[name] = (time.perf_counter() - started) / n * 1e9
        decisions.try_start(job)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build", help="build directory")
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work-dir", default="bench-out")
    args = parser.parse_args()
    source = pathlib.Path(__file__).resolve().parents[1]
    build = pathlib.Path(args.build).resolve()
    sys.path[:0] = [str(build / "python"), str(source / "examples" / "python")]
    import schedlab
    from easy_backfill import EasyBackfill
    from fifo import Fifo

    exe = build / "schedlab"
    philly = source / "traces" / "philly-6214e9.csv"
    print(f"Python policies (schedlab {schedlab.__version__}, best of {args.repeat})")
    trace = schedlab.read_trace(philly)
    builtin_s, _ = best_of(args.repeat, lambda: schedlab.run(trace, "32x8:V100", "fifo"))
    python_s, _ = best_of(args.repeat, lambda: schedlab.run(trace, "32x8:V100", Fifo))
    process_s, _ = best_of(args.repeat, lambda: subprocess.run(
        [str(exe), "run", "-q", "-t", str(philly), "-c", "32x8:V100", "-p",
         f"py:{source}/examples/python/fifo.py:Fifo"], check=True, stdout=subprocess.DEVNULL))
    print(f"philly-6214e9 ({len(trace)} jobs) on 32x8:V100:")
    print(f"  built-in fifo, schedlab.run             {builtin_s * 1e3:9.1f} ms")
    print(f"  Python fifo, schedlab.run               {python_s * 1e3:9.1f} ms"
          f"   {TIRESIAS_FIFO_S / python_s:7.0f}x faster than Tiresias' FIFO ({TIRESIAS_FIFO_S} s)")
    print(f"  Python fifo, `schedlab run` process     {process_s * 1e3:9.1f} ms"
          f"   {TIRESIAS_FIFO_S / process_s:7.0f}x faster (interpreter start and import included)")

    os.makedirs(args.work_dir, exist_ok=True)
    synthetic = pathlib.Path(args.work_dir) / f"python-synthetic-{args.jobs}.csv"
    if not synthetic.exists():
        subprocess.run([str(exe), "gen", "-n", str(args.jobs), "--seed", "1", "--load", "0.9",
                        "--load-gpus", "1024", "-o", str(synthetic)], check=True,
                       stderr=subprocess.DEVNULL)
    big = schedlab.read_trace(synthetic)
    print(f"synthetic, {len(big):,} jobs on 128x8:A100 (load 0.9):")
    print(f"  {'policy':<24} {'wall_s':>8} {'jobs/s':>10} {'events/s':>11} {'x built-in':>10}")
    for builtin, python in (("fifo", Fifo), ("easy-backfill", EasyBackfill)):
        base_s, base = best_of(args.repeat, lambda: schedlab.run(big, "128x8:A100", builtin))
        py_s, _ = best_of(args.repeat if python is Fifo else 1,
                          lambda: schedlab.run(big, "128x8:A100", python))
        for name, wall_s in ((builtin, base_s), ("Python " + builtin, py_s)):
            events = base.summary["engine"]["events"]
            print(f"  {name:<24} {wall_s:8.3f} {len(big) / wall_s:10.0f} {events / wall_s:11.0f}"
                  f" {wall_s / base_s:10.2f}")

    counting = CountingFifo()

    class Counted:
        def schedule(self, ctx, decisions):
            counting.schedule(ctx, decisions)

    counted_s, _ = best_of(1, lambda: schedlab.run(big, "128x8:A100", Counted))
    base_s, _ = best_of(1, lambda: schedlab.run(big, "128x8:A100", "fifo"))
    print("cost per call across the boundary:")
    print(f"  {counting.hook_calls:,} schedule() calls and {counting.engine_calls:,} calls into "
          f"the engine: {(counted_s - base_s) / (counting.hook_calls + counting.engine_calls) * 1e9:.0f}"
          " ns per call over the built-in fifo's run")
    schedlab.run(schedlab.Trace.from_columns(id=["a", "b"], submit_time=[0, 0], gpus=[8, 8],
                                             duration=[10, 10]), "1x8:A100", Probe)
    for name, ns in Probe.results.items():
        print(f"  {name:<30} {ns:7.0f} ns")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of this process: {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
