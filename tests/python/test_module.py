"""The Python module: traces as columns, runs equal to the command line's, errors, threads."""
import json
import os
import subprocess
import sys
import threading

import numpy
import pytest

import schedlab
from conftest import BUNDLED, SOURCE_DIR, cli, random_columns

PHILLY = str(SOURCE_DIR / "traces/philly-6214e9.csv")


def test_read_trace_columns_match_the_file():
    trace = schedlab.read_trace(PHILLY)
    assert len(trace) == 1985 and trace.format == "native"
    columns = trace.columns
    assert list(columns) == ["id", "submit_time", "gpus", "duration"]
    assert columns["id"].dtype == object and columns["id"][1] == "1"
    assert columns["submit_time"][1] == 266564.0
    assert columns["gpus"].dtype == numpy.int64 and int(columns["gpus"].sum()) > 1985
    assert columns["duration"][0] == 3828695.0


def test_filters_as_keywords_and_as_strings():
    by_keywords = schedlab.read_trace(PHILLY, limit=10, to="30d")
    by_strings = schedlab.read_trace(PHILLY, filters=["limit=10", "to=30d"])
    assert len(by_keywords) == len(by_strings) == 10
    assert len(schedlab.read_trace(PHILLY, to="3d")) == 1
    assert list(by_keywords.columns["id"]) == list(by_strings.columns["id"])


def test_trace_from_columns_round_trips_and_replays_like_the_file():
    trace = schedlab.read_trace(PHILLY)
    rebuilt = schedlab.Trace.from_columns(trace.columns)
    assert len(rebuilt) == len(trace)
    a = schedlab.run(trace, "32x8:V100", "fifo", reproducible=True)
    b = schedlab.run(rebuilt, "32x8:V100", "fifo", reproducible=True)
    assert a.csv("jobs") == b.csv("jobs")


def test_trace_from_pandas_and_back():
    columns = random_columns(3, 50, 8)
    frame = schedlab.Trace.from_columns(columns).to_pandas()
    assert list(frame["id"][:2]) == ["j0", "j1"]
    again = schedlab.Trace.from_pandas(frame)
    assert list(again.columns["walltime"]) == list(frame["walltime"])


def test_from_columns_errors_name_row_column_and_value():
    with pytest.raises(schedlab.InputError) as error:
        schedlab.Trace.from_columns(id=["a", "b"], submit_time=[0, 1], gpus=[1, "x"],
                                    duration=[5, 5])
    e = error.value
    assert (e.file, e.line, e.field, e.value) == ("<columns>", 3, "gpus", "x")
    assert isinstance(e, ValueError)


def test_summary_and_outputs_equal_the_command_line(tmp_path, monkeypatch):
    monkeypatch.chdir(SOURCE_DIR)  # the summary names the trace as given
    trace, cluster = BUNDLED[0]
    result = schedlab.run(trace, cluster, "easy-backfill", seed=7,
                          placement="first-fit", reproducible=True)
    result.write(tmp_path / "py")
    cli("run", "-q", "--reproducible", "-t", trace, "-c", cluster, "-p", "easy-backfill",
        "--seed", 7, "--placement", "first-fit", "-o", tmp_path / "cli")
    names = sorted(os.listdir(tmp_path / "cli"))
    assert names == sorted(os.listdir(tmp_path / "py"))
    for name in names:
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "py" / name).read_bytes(), name
    summary = json.loads((tmp_path / "cli" / "summary.json").read_text())
    assert result.summary == summary
    jobs = result.jobs
    assert len(jobs) == 1985 and jobs["job_id"][0] == "0"
    assert abs(float(numpy.mean(jobs["waiting_time"])) - summary["wait_s"]["mean"]) < 0.001
    assert set(result.attempts) >= {"job_id", "attempt", "start_time", "end_time"}
    assert len(result.timeseries["time_s"]) > 10


def test_run_reports_tenants_and_columns_convert_to_pandas():
    result = schedlab.run(schedlab.Trace.from_columns(random_columns(1, 120, 8)), "2x8:A100",
                          "fair-share", reproducible=True)
    assert [t for t in result.tenants["tenant"]] == ["a", "b", "c"]
    frame = result.jobs.to_pandas()
    assert len(frame) == 120 and frame["tenant"].iloc[0] in ("a", "b", "c")


def test_compare_runs_each_policy_as_run_does():
    trace = schedlab.read_trace(PHILLY)
    comparison = schedlab.compare(trace, "32x8:V100", ["fifo", "sjf", "easy-backfill"],
                                  reproducible=True)
    assert list(comparison.table["policy"]) == ["fifo", "sjf", "easy-backfill"]
    fifo = schedlab.run(trace, "32x8:V100", "fifo", reproducible=True)
    assert comparison.results["fifo"].csv("jobs") == fifo.csv("jobs")
    assert comparison.table["wait_s.mean"][0] == fifo.summary["wait_s"]["mean"]
    assert comparison.table["wait_s.mean"][1] < comparison.table["wait_s.mean"][0]


@pytest.mark.parametrize("policies, message", [
    ([], "policies: no policy to compare (the list is empty)"),
    ((), "policies: no policy to compare (the list is empty)"),
    ("fifo", "policies: expected a list of policies, got 'fifo'"),
])
def test_compare_without_a_list_of_policies_raises_value_error(policies, message):
    with pytest.raises(ValueError) as error:
        schedlab.compare(PHILLY, "32x8:V100", policies)
    assert isinstance(error.value, schedlab.InputError)
    assert str(error.value) == message
    assert error.value.field == "policies"


def test_load_plugin_refuses_a_truncated_library_with_an_exception(tmp_path):
    """A library cut after its ABI record used to die with SIGBUS inside dlopen, taking the
    interpreter down: it is refused with InputError before it is loaded (in a child process, so
    that a crash fails this test alone)."""
    plugin = os.environ.get("SCHEDLAB_TEST_PLUGIN")
    if not plugin:
        pytest.skip("SCHEDLAB_TEST_PLUGIN is not set")
    data = open(plugin, "rb").read()
    cut = tmp_path / "libcut.so"
    cut.write_bytes(data[:data.index(b"\0", data.index(b"schedlab-plugin-abi:")) + 1])
    script = ("import schedlab, sys\n"
              "try:\n"
              "    schedlab.load_plugin(sys.argv[1])\n"
              "except schedlab.InputError as error:\n"
              "    print(error)\n"
              "    sys.exit(3)\n")
    done = subprocess.run([sys.executable, "-c", script, str(cut)], capture_output=True, text=True)
    assert done.returncode == 3, (done.returncode, done.stderr)
    assert done.stdout.startswith(f"--plugin {cut}: not a loadable shared library: truncated or "
                                  "corrupt: "), done.stdout


def test_policies_lists_built_in_ones_with_parameters():
    listed = {p["name"]: p for p in schedlab.policies()}
    assert {"fifo", "easy-backfill", "las", "quota"} <= set(listed)
    assert listed["fifo"]["origin"] == "built-in"
    assert any(p["key"] == "blocking" for p in listed["priority"]["params"])


@pytest.mark.parametrize("call, field, value", [
    (lambda: schedlab.run(PHILLY, "32x8:V100", "fifo", pue=0), "pue", "0"),
    (lambda: schedlab.run(PHILLY, "32x8:V100", "fifo", placement="best"), "placement", None),
    (lambda: schedlab.run(PHILLY, "32x8:V100", "fifo", wait_s=3), "wait_s", "3"),
    (lambda: schedlab.run(PHILLY, "32x8:V100", "fifo", seed="x"), "seed", None),
    (lambda: schedlab.run(PHILLY, "1x8:Z100", "fifo"), "--cluster", "1x8:Z100"),
    (lambda: schedlab.run(PHILLY, "32x8:V100", "fifoo"), "--policy", None),
    (lambda: schedlab.run(PHILLY, "32x8:V100", "priority", {"blocking": "maybe"}), "--param",
     None),
    (lambda: schedlab.read_trace("/nonexistent/t.csv"), None, None),
])
def test_input_errors_raise_input_error(call, field, value):
    with pytest.raises(schedlab.InputError) as error:
        call()
    assert "\n" not in str(error.value)
    assert error.value.field == field
    if value is not None:
        assert error.value.value == value


def test_bad_trace_file_names_file_line_field_value(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("id,submit_time,gpus,duration\na,0,1,5\nb,1,0,5\n")
    with pytest.raises(schedlab.InputError) as error:
        schedlab.read_trace(bad)
    assert (error.value.file, error.value.line, error.value.field, error.value.value) == (
        str(bad), 3, "gpus", "0")


def test_run_releases_the_gil():
    """While a run goes on in a thread, this thread keeps running Python."""
    trace = schedlab.read_trace(SOURCE_DIR / "traces/alibaba-openb-pods-2000.csv.gz")
    done = threading.Event()
    ticks = 0

    def work():
        for _ in range(3):
            schedlab.run(trace, "4x8:A100", "conservative-backfill")
        done.set()

    thread = threading.Thread(target=work)
    thread.start()
    while not done.is_set():
        ticks += 1
    thread.join()
    assert ticks > 10000


def test_threads_give_the_same_results_as_one_after_another():
    trace = schedlab.read_trace(PHILLY)
    alone = [schedlab.run(trace, "32x8:V100", p, reproducible=True).csv("jobs")
             for p in ("fifo", "las", "easy-backfill")]
    together = schedlab.compare(trace, "32x8:V100", ["fifo", "las", "easy-backfill"], threads=3,
                                reproducible=True)
    assert [r.csv("jobs") for r in together.results.values()] == alone


def test_the_notebook_style_example_plots_wait_against_load(tmp_path):
    """examples/python/wait_vs_load.py: a sweep over loads from Python, plotted with matplotlib."""
    import subprocess
    import sys
    out = tmp_path / "wait.png"
    done = subprocess.run([sys.executable, str(SOURCE_DIR / "examples/python/wait_vs_load.py"),
                           "--loads", "1,2", "--out", str(out)], capture_output=True, text=True,
                          env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("load x1: fifo=11.26 h  sjf=") and lines[1].startswith("load x2:")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10000


def test_resampled_replicates_differ_by_seed_and_are_echoed():
    trace = schedlab.read_trace(PHILLY)
    runs = [schedlab.run(trace, "32x8:V100", "fifo", resample="bootstrap", seed=s,
                         reproducible=True) for s in (1, 2, 1)]
    assert runs[0].csv("jobs") == runs[2].csv("jobs")
    assert runs[0].csv("jobs") != runs[1].csv("jobs")
    assert runs[0].summary["options"]["resample"] == "bootstrap"
    assert "resample" not in schedlab.run(trace, "32x8:V100", "fifo").summary["options"]
    with pytest.raises(schedlab.InputError) as error:
        schedlab.run(trace, "32x8:V100", "fifo", resample="jitter:2")
    assert error.value.field == "resample" and error.value.value == "jitter:2"
