"""Python-written policies: equal to the built-in ones decision for decision, the framework's
rules (illegal decisions, exceptions, stale objects), parameters, the contract check and the
command line's py: policies."""
import os
import re

import pytest

import schedlab
from conftest import BUNDLED, SOURCE_DIR, cli, random_columns
from easy_backfill import EasyBackfill
from fifo import Fifo
from smallest_first import SmallestFirst, SmallestFirstPreemptive

EXAMPLES = "examples/python"


def jobs_csv(trace, cluster, policy, params=None, **options):
    return schedlab.run(trace, cluster, policy, params, reproducible=True, **options).csv("jobs")


@pytest.mark.parametrize("trace, cluster", BUNDLED)
@pytest.mark.parametrize("builtin, python", [("fifo", Fifo), ("easy-backfill", EasyBackfill)])
def test_equal_to_the_built_in_policy_on_the_bundled_traces(trace, cluster, builtin, python,
                                                            monkeypatch):
    monkeypatch.chdir(SOURCE_DIR)
    loaded = schedlab.read_trace(trace)
    assert jobs_csv(loaded, cluster, builtin) == jobs_csv(loaded, cluster, python)


RANDOM_CASES = [
    # (seed, cluster, options)
    (1, "3x4:A100", {}),
    (2, "2x8:V100", {"placement": "first-fit"}),
    (3, "4x4:A100", {"placement": "spread", "estimate": "factor:2"}),
    (4, "2x8:V100,2x4:A100", {}),
    (5, "8x2:A100", {"placement": "topology", "walltime_kill": False}),
    (6, "3x4:A100", {"failures": "rate=2000,repair=1,seed=3"}),
    (7, "2x8:V100,2x4:A100", {"placement": "first-fit", "checkpoint_interval_s": 60,
                              "restart_overhead_s": 5, "failures": "rate=1000,seed=5"}),
    (8, "1x16:A100", {}),
]


@pytest.mark.parametrize("seed, cluster, options", RANDOM_CASES)
def test_equal_to_the_built_in_policy_on_random_traces(seed, cluster, options):
    types = ["V100", "A100"] if "," in cluster else None
    max_gpus = 16 if "16" in cluster else 8
    trace = schedlab.Trace.from_columns(random_columns(seed, 300, max_gpus, types))
    for builtin, python in (("fifo", Fifo), ("easy-backfill", EasyBackfill)):
        assert jobs_csv(trace, cluster, builtin, **options) == \
            jobs_csv(trace, cluster, python, **options), (builtin, seed)


@pytest.fixture(scope="module")
def smallest_first_plugin():
    path = os.environ.get("SCHEDLAB_TEST_PLUGIN")
    if not path:
        pytest.skip("SCHEDLAB_TEST_PLUGIN is not set")
    return schedlab.load_plugin(path)


@pytest.mark.parametrize("seed", [11, 12, 13])
@pytest.mark.parametrize("blocking", [True, False])
def test_smallest_first_equals_the_plugin(smallest_first_plugin, seed, blocking):
    assert "smallest-first" in smallest_first_plugin[0]
    trace = schedlab.Trace.from_columns(random_columns(seed, 300, 8))
    params = {"blocking": blocking}
    assert jobs_csv(trace, "3x8:A100", "smallest-first", params) == \
        jobs_csv(trace, "3x8:A100", SmallestFirst, params)


def small_preempts_big():
    return schedlab.Trace.from_columns(id=["big", "small"], submit_time=[0, 10], gpus=[4, 1],
                                       duration=[100, 10], walltime=[1000, 100])


@pytest.mark.parametrize("min_runtime, preempted_at", [(0, 10.0), (30, 30.0)])
def test_preemptive_variant_by_hand(min_runtime, preempted_at):
    """One 4-GPU node: the 1-GPU job preempts the 4-GPU one (at once, or once it has run
    min_runtime), runs 10 s; the big job restarts from its checkpoint and pays the default 30 s
    restart overhead."""
    result = schedlab.run(small_preempts_big(), "1x4:A100", SmallestFirstPreemptive,
                          {"min_runtime": min_runtime})
    attempts = result.attempts
    rows = sorted(zip(attempts["job_id"], attempts["start_time"], attempts["end_time"],
                      attempts["end_reason"]), key=lambda row: row[1])
    restart = preempted_at + 10
    assert rows == [("big", 0.0, preempted_at, "preempted"),
                    ("small", preempted_at, preempted_at + 10, "completed"),
                    ("big", restart, restart + 30 + 100 - preempted_at, "completed")]


def test_check_policy_keeps_the_contract():
    assert schedlab.check_policy(Fifo, never_preempts=True).kept
    assert schedlab.check_policy(SmallestFirst, {"blocking": False}, never_preempts=True).kept
    report = schedlab.check_policy(SmallestFirstPreemptive)
    assert report.kept and report.runs == 50, report.text
    broken = schedlab.check_policy(SmallestFirstPreemptive, never_preempts=True)
    assert not broken.kept and "preempt" in broken.text


class StartsOnBusyGpus:
    def schedule(self, ctx, decisions):
        for job in list(ctx.queue):
            decisions.start(job, [(0, 1)])


def test_an_illegal_decision_raises_the_engines_policy_error():
    trace = schedlab.Trace.from_columns(id=["a", "b"], submit_time=[0, 0], gpus=[1, 1],
                                        duration=[5, 5])
    with pytest.raises(schedlab.PolicyError) as error:
        schedlab.run(trace, "1x4:A100", StartsOnBusyGpus)
    assert str(error.value) == ("policy cannot start job 'b' at 0 ms: placement names GPUs that "
                                "are not free, do not exist, or is not sorted by node")
    assert "raised in schedule() at simulated time 0.000 s" in error.value.__notes__[0]


class Raises:
    def __init__(self, at_job=3):
        self.at_job = at_job

    def schedule(self, ctx, decisions):
        for job in list(ctx.queue):
            if job == self.at_job:
                raise ZeroDivisionError("policy bug")
            decisions.try_start(job)


def test_an_exception_stops_the_run_with_its_traceback_and_time():
    trace = schedlab.Trace.from_columns(random_columns(1, 20, 4))
    with pytest.raises(ZeroDivisionError) as error:
        schedlab.run(trace, "1x8:A100", Raises)
    note = error.value.__notes__[0]
    assert re.fullmatch(r"policy 'py:test_python_policies.Raises' raised in schedule\(\) at "
                        r"simulated time [0-9]+\.[0-9]{3} s", note), note
    assert error.value.__traceback__ is not None


class KeepsItsContext:
    def on_begin(self, ctx, sizes):
        self.ctx = ctx
        self.sizes = sizes

    def schedule(self, ctx, decisions):
        self.decisions = decisions
        self.job = ctx.job(ctx.queue.head)
        decisions.try_start(ctx.queue.head)

    def on_finish(self, ctx, job):
        with pytest.raises(RuntimeError, match="only be made during schedule"):
            self.decisions.try_start(job)
        with pytest.raises(IndexError):
            ctx.job(10**6)
        with pytest.raises(IndexError):
            ctx.cluster.node_free_mask(99)


def test_views_are_checked_and_stale_ones_raise_instead_of_reading_freed_state():
    policy = {}

    class Probe(KeepsItsContext):
        def on_begin(self, ctx, sizes):
            super().on_begin(ctx, sizes)
            policy["instance"] = self

    trace = schedlab.Trace.from_columns(id=["a", "b"], submit_time=[0, 1], gpus=[2, 1],
                                        duration=[5, 5])
    schedlab.run(trace, "1x4:A100", Probe)
    probe = policy["instance"]
    assert (probe.sizes["jobs"], probe.sizes["nodes"], probe.sizes["gpus"]) == (2, 1, 4)
    for stale in (lambda: probe.ctx.now, lambda: probe.job.gpus, lambda: probe.ctx.queue.head,
                  lambda: probe.decisions.try_start(0)):
        with pytest.raises(RuntimeError):
            stale()


def test_bad_placements_and_job_indices_raise_errors_not_crashes():
    class Garbage:
        def __init__(self, kind="node"):
            self.kind = kind

        def schedule(self, ctx, decisions):
            if self.kind == "node":
                decisions.start(ctx.queue.head, [(10**9, 1)])
            elif self.kind == "mask":
                decisions.start(ctx.queue.head, [(0, 0)])
            elif self.kind == "job":
                decisions.preempt(10**9)
            else:
                decisions.start(ctx.queue.head, "nonsense")

    trace = schedlab.Trace.from_columns(id=["a"], submit_time=[0], gpus=[1], duration=[5])
    for kind, error in (("node", schedlab.PolicyError), ("mask", schedlab.PolicyError),
                        ("job", schedlab.PolicyError), ("type", (TypeError, RuntimeError))):
        with pytest.raises(error):
            schedlab.run(trace, "1x4:A100", Garbage, {"kind": kind})


def test_parameters_are_converted_to_the_defaults_types_and_checked():
    listed = {p["name"]: p for p in schedlab.policies()}
    schedlab.run(small_preempts_big(), "1x4:A100", SmallestFirst, {"blocking": "false"})
    name = "py:smallest_first.SmallestFirst"
    assert listed[name]["params"] == [
        {"key": "blocking", "default": "true", "description": "default True"}]
    assert listed[name]["origin"] == "python"
    with pytest.raises(schedlab.InputError, match="expected true or false"):
        schedlab.run(small_preempts_big(), "1x4:A100", SmallestFirst, {"blocking": "maybe"})
    with pytest.raises(schedlab.InputError, match="has no parameter 'speed'"):
        schedlab.run(small_preempts_big(), "1x4:A100", SmallestFirst, {"speed": 2})


def test_command_line_runs_and_lists_python_policies(tmp_path):
    fifo = f"py:{EXAMPLES}/fifo.py:Fifo"
    easy = f"py:{EXAMPLES}/easy_backfill.py:EasyBackfill"
    for builtin, python in (("fifo", fifo), ("easy-backfill", easy)):
        cli("run", "-q", "-t", "traces/philly-6214e9.csv", "-c", "32x8:V100", "-p", builtin,
            "-o", tmp_path / builtin)
        cli("run", "-q", "-t", "traces/philly-6214e9.csv", "-c", "32x8:V100", "-p", python,
            "-o", tmp_path / (builtin + "-py"))
        assert (tmp_path / builtin / "jobs.csv").read_bytes() == \
            (tmp_path / (builtin + "-py") / "jobs.csv").read_bytes()
    listed = cli("policies", "--python", f"{EXAMPLES}/smallest_first.py").stdout
    assert re.search(r"py:examples/python/smallest_first.py:SmallestFirst +Fewest GPUs first "
                     r"\(ties: submit time, trace order\); non-preemptive. \[python\]", listed)
    assert "--param blocking=true" in listed
    compared = cli("compare", "-t", "traces/philly-6214e9.csv", "-c", "32x8:V100", "--csv",
                   "--policies", f"fifo,{fifo}").stdout.splitlines()
    assert compared[1].split(",")[2:] == compared[2].split(",")[2:]


def test_command_line_errors_of_python_policies(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("class P:\n    def schedule(self, ctx, decisions)\n        pass\n")
    raises = tmp_path / "raises.py"
    raises.write_text("class P:\n    def schedule(self, ctx, decisions):\n        1 / 0\n")
    needs = tmp_path / "needs.py"
    needs.write_text("class P:\n    def __init__(self, size):\n        self.size = size\n"
                     "    def schedule(self, ctx, decisions):\n        pass\n")
    for policy, code, pattern in (
            (f"py:{bad}:P", 2, r"^--policy py:.*bad.py:P: .*bad.py: SyntaxError"),
            (f"py:{raises}:Q", 2, r"has no policy class 'Q' \(policy classes: P\)"),
            (f"py:{needs}:P", 2, r"^--policy py:.*needs.py:P: .*needs.py: TypeError: "
                                 r"P.__init__: parameter 'size' needs a default"),
            (f"py:{needs}", 2, r"^--policy py:.*needs.py: .*needs.py: TypeError: "
                               r"P.__init__: parameter 'size' needs a default"),
            (f"py:{tmp_path}/none.py:P", 2, r"FileNotFoundError: no such file"),
            ("py:nofile", 2, r"expected py:FILE.py:CLASS"),
            (f"py:{raises}:P", 4, r"raised in schedule\(\) at simulated time 0.000 s:\n"
                                  r"Traceback \(most recent call last\):\n(.|\n)*"
                                  r"ZeroDivisionError: division by zero")):
        done = cli("run", "-t", "traces/philly-6214e9.csv", "-c", "2x8", "-p", policy,
                   "-o", tmp_path / "out", check=False)
        assert done.returncode == code, done.stderr
        assert re.search(pattern, done.stderr), done.stderr
        assert not (tmp_path / "out").exists()


def test_a_sweep_runs_python_policies_on_threads(tmp_path):
    """Sweep cells on two threads take the GIL per hook call; results equal the built-in ones."""
    cli("sweep", "-t", "traces/philly-6214e9.csv", "-c", "32x8:V100", "-p", "fifo",
        "-p", f"py:{EXAMPLES}/fifo.py:Fifo", "-p", "easy-backfill",
        "-p", f"py:{EXAMPLES}/easy_backfill.py:EasyBackfill", "--seeds", "1,2", "-j", "2",
        "--reproducible", "-o", tmp_path / "sweep")
    cells = sorted((tmp_path / "sweep" / "cells").iterdir())
    jobs = [(cell / "jobs.csv").read_bytes() for cell in cells]
    assert len(jobs) == 8
    assert jobs[0] == jobs[1] == jobs[2] == jobs[3]  # fifo, Python fifo; seeds 1 and 2
    assert jobs[4] == jobs[5] == jobs[6] == jobs[7]  # easy-backfill, Python easy-backfill
    assert jobs[0] != jobs[4]


def test_a_python_policy_joins_a_leaderboard_with_one_line(tmp_path):
    """py:FILE.py:CLASS in a suite, FILE relative to the suite: the Python FIFO ties the
    built-in one on every trace and metric, replicate by replicate."""
    import csv
    import json
    import shutil

    shutil.copy(SOURCE_DIR / "examples" / "python" / "fifo.py", tmp_path / "fifo.py")
    suite = {
        "traces": [
            {"name": "philly", "path": str(SOURCE_DIR / "traces" / "philly-6214e9.csv"),
             "cluster": "32x8:V100"},
            {"name": "itp", "path": str(SOURCE_DIR / "traces" / "itp-cluster10.csv"),
             "cluster": "2x8:A100"},
        ],
        "policies": ["fifo", "sjf", "py:fifo.py:Fifo"],
        "seeds": ["1-3"],
        "options": {"resample": "jitter:0.2"},
    }
    (tmp_path / "suite.json").write_text(json.dumps(suite))
    cli("leaderboard", tmp_path / "suite.json", "-o", tmp_path / "out", "-j", "2", "-q")
    with open(tmp_path / "out" / "leaderboard.csv", newline="") as f:
        rows = {(r["scope"], r["metric"], r["policy"]): r for r in csv.DictReader(f)}
    python_rows = [key for key in rows if key[2] == "py:fifo.py:Fifo"]
    assert len(python_rows) == 2 * 3 + 3 + 1
    for scope, metric, _ in python_rows:
        built_in = rows[(scope, metric, "fifo")]
        python = rows[(scope, metric, "py:fifo.py:Fifo")]
        assert python["mean"] == built_in["mean"]
        assert python["rank"] == built_in["rank"]
        assert python["n"] == "3"
    board = (tmp_path / "out" / "leaderboard.md").read_text()
    assert "| py:fifo.py:Fifo |" in board
