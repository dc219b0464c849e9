"""Entitlement figures recomputed independently (tests/tools/recompute_entitlement.py) from a
run's jobs.csv and attempts.csv agree with summary.json for every tenant, under policies that
preempt (quota with reclaim, drf with preemption), that queue (fifo) and that share (fair-share),
demand-aware shares included;
and, on the Philly 2017 study when the shared traces are present, with docs/tenants.md."""
import importlib.util
import json
import pathlib

import pytest

from conftest import SOURCE_DIR, cli, random_columns

spec = importlib.util.spec_from_file_location(
    "recompute_entitlement", SOURCE_DIR / "tests" / "tools" / "recompute_entitlement.py")
recompute_entitlement = importlib.util.module_from_spec(spec)
spec.loader.exec_module(recompute_entitlement)


def write_trace(path, columns):
    keys = [k for k in columns if k != "walltime"]
    lines = [",".join(keys)]
    for i in range(len(columns["id"])):
        lines.append(",".join(str(columns[k][i]) for k in keys))
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("policy", ["fifo", "quota", "fair-share", "drf:preempt=true"])
def test_entitlement_figures_match_an_independent_recomputation(tmp_path, policy):
    trace = tmp_path / "trace.csv"
    write_trace(trace, random_columns(11, 400, 8))
    tenants = tmp_path / "tenants.json"
    tenants.write_text('{"tenants":[{"name":"a","quota":8,"weight":1},'
                       '{"name":"b","quota":8,"weight":2},{"name":"c","quota":16,"weight":1}]}')
    name, _, param = policy.partition(":")
    args = ["run", "-t", trace, "-c", "4x8:V100", "--tenants", tenants, "-p", name, "-q",
            "--reproducible", "-o", tmp_path / "out"]
    if param:
        args += ["--param", param]
    cli(*args)
    figures, mismatches = recompute_entitlement.compare(tmp_path / "out")
    assert sorted(figures) == ["a", "b", "c"]
    assert mismatches == []
    # The run queues: some tenant waited under its entitlement and was owed GPUs.
    assert sum(f["entitlement_deficit_gpu_h"] for f in figures.values()) > 0
    assert any(f["demand_share"] is not None and f["demand_share"] < 1 for f in figures.values())


STUDY_VCS = "6214e9,7f04ca,11cb48,b436b2,ee9e8c,e13805,6c71a0,2869ce,ed69ec,103959,0e4a51"
STUDY_ROWS = {  # docs/tenants.md's row label -> the run's policy arguments
    "`fifo`": ["-p", "fifo"],
    "`quota`, `borrowing=false`": ["-p", "quota", "--param", "borrowing=false"],
    "`quota` (borrowing, reclaim)": ["-p", "quota"],
    "`fair-share`": ["-p", "fair-share"],
    "`drf`": ["-p", "drf"],
}


def test_philly_2017_study_figures_in_docs_are_recomputed_independently(tmp_path):
    shared = SOURCE_DIR.parent / "shared" / "traces" / "philly-2017"
    if not (shared / "philly.csv").exists():
        pytest.skip("shared Philly 2017 trace not found")
    table = {}
    for line in (SOURCE_DIR / "docs" / "tenants.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] in STUDY_ROWS:
            table[cells[0]] = cells
    assert sorted(table) == sorted(STUDY_ROWS)
    for label, args in STUDY_ROWS.items():
        out = tmp_path / str(len(list(tmp_path.iterdir())))
        cli("run", "-t", shared / "philly.csv", "-c", "352x2:V100", "--tenants",
            f"philly-vc:{shared / 'philly_vc.csv'}", "--filter", f"tenant={STUDY_VCS}",
            "--no-walltime-kill", "-q", "-o", out, *args)
        figures, mismatches = recompute_entitlement.compare(out)
        assert mismatches == []
        under_h = sum(f["waited_under_entitlement_s"] for f in figures.values()) / 3600
        deficit = sum(f["entitlement_deficit_gpu_h"] for f in figures.values())
        share = max(f["waited_under_entitlement_share"] for f in figures.values())
        jain, least = recompute_entitlement.demand_share_index(figures)
        summary = json.loads((out / "summary.json").read_text())
        assert abs(summary["fairness"]["demand_share_jain"] - jain) < 1e-6, label
        assert abs(summary["fairness"]["demand_share_min"] - least) < 1e-6, label
        cells = table[label]
        assert cells[6] == f"{share:.3f}", label
        assert cells[7] == f"{under_h:,.0f} h", label
        assert cells[8] == f"{deficit:,.0f} GPU-h", label
        assert cells[9] == f"{jain:.3f}", label
        assert cells[10] == f"{least:.3f}", label
