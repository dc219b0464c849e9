"""scripts/check-layers (the layer-order check of docs/design.md) passes on the source tree and
fails, naming file and line, on each kind of include it exists to refuse."""
import shutil
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR


def run_check(tree):
    return subprocess.run([sys.executable, str(tree / "scripts" / "check-layers"), str(tree)],
                          capture_output=True, text=True, check=False)


@pytest.fixture()
def tree(tmp_path):
    copy = tmp_path / "tree"
    for folder in ("src", "include", "policies", "python/bindings", "scripts"):
        shutil.copytree(SOURCE_DIR / folder, copy / folder)
    (copy / "docs").mkdir()
    shutil.copy(SOURCE_DIR / "docs" / "design.md", copy / "docs" / "design.md")
    return copy


def append_include(path, line):
    text = path.read_text()
    path.write_text(text + line + "\n")
    return len(text.splitlines()) + 1


def test_the_source_tree_follows_the_layer_order(tree):
    result = run_check(tree)
    assert result.returncode == 0, result.stdout
    assert "every include follows the layer order" in result.stdout


def test_an_include_of_a_higher_layer_fails(tree):
    number = append_include(tree / "src" / "metrics" / "summary_table.cpp",
                            '#include "schedlab/simulation.hpp"')
    result = run_check(tree)
    assert result.returncode == 1
    assert (f"src/metrics/summary_table.cpp:{number}: includes include/schedlab/simulation.hpp "
            "of layer sim, which layer metrics does not link") in result.stdout


def test_a_public_header_including_a_higher_layer_fails(tree):
    number = append_include(tree / "include" / "schedlab" / "cluster.hpp",
                            '#include "schedlab/policy.hpp"')
    result = run_check(tree)
    assert result.returncode == 1
    assert f"include/schedlab/cluster.hpp:{number}: includes include/schedlab/policy.hpp" \
        in result.stdout


def test_an_internal_header_of_another_layer_fails(tree):
    number = append_include(tree / "src" / "workflows" / "sweep" / "sweep_cells.cpp",
                            '#include "../../sim/what_if_cluster.hpp"')
    result = run_check(tree)
    assert result.returncode == 1
    assert (f"src/workflows/sweep/sweep_cells.cpp:{number}: includes src/sim/what_if_cluster.hpp, "
            "internal to layer sim") in result.stdout


def test_a_public_header_missing_from_the_design_table_fails(tree):
    (tree / "include" / "schedlab" / "new_thing.hpp").write_text("#pragma once\n")
    result = run_check(tree)
    assert result.returncode == 1
    assert "include/schedlab/new_thing.hpp: listed in no layer's row" in result.stdout


def test_a_reach_in_that_ended_must_leave_the_allow_list(tree):
    engine = tree / "src" / "sim" / "engine.cpp"
    engine.write_text(engine.read_text().replace('#include "../models/power_states.hpp"\n', ""))
    result = run_check(tree)
    assert result.returncode == 1
    assert "no longer includes src/models/power_states.hpp" in result.stdout
