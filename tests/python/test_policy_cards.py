"""A Python policy's card (docs/policies.md, "Policy cards"): its summary and parameters from the
class, the kind of each parameter from its default, "not stated" where a class says nothing,
and the contract check run as for any policy."""
from conftest import cli

NAME = "py:examples/python/smallest_first.py:SmallestFirstPreemptive"


def test_card_of_a_python_policy():
    card = cli("policies", "--card", NAME, "--leaderboard", "docs/leaderboard.md").stdout
    assert card.startswith(f"# Policy card: {NAME}\n\n")
    assert "\nOrigin: Python class. " in card
    assert "## Algorithm\n\nnot stated\n" in card
    assert "## Citation\n\nnot stated\n" in card
    assert "| `min_runtime` | `0.0` | number | default 0.0 |\n" in card
    for need in ("walltimes (the trace's, else the `--estimate` rule)",
                 "tenants (schedules by tenant)", "job priorities",
                 "preempts running jobs (default parameters)"):
        assert f"| {need} | not stated |\n" in card
    # Not stated not to preempt: the check runs without --never-preempts.
    assert (f"`schedlab check-policy --policy {NAME}`:\n\n```\n{NAME}: contract kept in "
            in card)
    assert card.endswith(
        '## Standing\n\nNot on the board "Leaderboard: schedlab default suite".\n')


def test_card_of_a_python_policy_with_a_boolean_parameter():
    card = cli("policies", "--card", "py:examples/python/smallest_first.py:SmallestFirst",
               "--no-contract-check").stdout
    assert "| `blocking` | `true` | boolean | default True |\n" in card
    assert ": not run for this card.\n" in card
