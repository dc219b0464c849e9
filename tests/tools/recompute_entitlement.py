#!/usr/bin/env python3
"""Recomputes each tenant's time waited under its entitlement, its entitlement deficit and its
demand-aware share from a run's jobs.csv and attempts.csv alone, as an independent check of
summary.json's tenants.T.waited_under_entitlement_s / _share, entitlement_deficit_gpu_h,
demand_fair_gpu_h, demand_received_gpu_h and demand_share (docs/tenants.md).

A tenant is entitled to E = weight / sum of weights x cluster GPUs (read from summary.json). From the
attempts it rebuilds, per tenant, the GPUs held and the queued jobs over time (a job is queued from
its submit time to its first start, and again from the end of a preempted or failed attempt to
the next start). Between two consecutive event times the state is constant:
- waited under entitlement: jobs are queued and held + the smallest queued job's GPUs <= E;
- deficit: max(0, min(held + queued GPUs, E) - held) GPUs.
Across tenants, between two consecutive event times of any tenant, while any job is queued: each
tenant's weighted max-min fair allocation of the cluster's GPUs given the demands held + queued
GPUs (water-filling in order of demand / weight; weight 0 gets nothing), and what it holds.

Usage: recompute_entitlement.py RUN_DIR [RUN_DIR ...]   (run output directories of `schedlab run
-o` with tenants); prints one line per tenant and exits 1 when a figure differs from summary.json.
"""
import collections
import csv
import json
import pathlib
import sys

REQUEUED = {"preempted", "failed"}


def recompute(run_dir):
    run_dir = pathlib.Path(run_dir)
    summary = json.loads((run_dir / "summary.json").read_text())
    total_gpus = summary["cluster"]["gpus"]
    # From the weights, as the engine computes it (entitled_share itself is rounded in the file).
    weight_sum = sum(t["weight"] for t in summary["tenants"].values())
    entitled = {name: (t["weight"] / weight_sum if weight_sum > 0 else 0.0) * total_gpus
                for name, t in summary["tenants"].items()}
    jobs = {}
    with open(run_dir / "jobs.csv", newline="") as f:
        for row in csv.DictReader(f):
            jobs[row["job_id"]] = row
    attempts = collections.defaultdict(list)
    with open(run_dir / "attempts.csv", newline="") as f:
        for row in csv.DictReader(f):
            attempts[row["job_id"]].append(row)
    # Events per tenant, in ms: (time, kind, gpus); kinds: queue +/-, hold +/-.
    events = collections.defaultdict(list)
    for job_id, job in jobs.items():
        runs = sorted(attempts.get(job_id, []), key=lambda a: int(a["attempt"]))
        if not runs:
            continue  # rejected: never queued
        tenant = job["tenant"]
        gpus = int(job["requested_number_of_resources"])
        queued_from = round(float(job["submission_time"]) * 1000)
        for attempt in runs:
            start = round(float(attempt["start_time"]) * 1000)
            end = round(float(attempt["end_time"]) * 1000)
            events[tenant].append((queued_from, "enqueue", gpus))
            events[tenant].append((start, "dequeue", gpus))
            events[tenant].append((start, "hold", gpus))
            events[tenant].append((end, "release", gpus))
            queued_from = end if attempt["end_reason"] in REQUEUED else None
    out = {}
    weights = {name: (t["weight"] / weight_sum if weight_sum > 0 else 0.0)
               for name, t in summary["tenants"].items()}
    for tenant, (fair, received) in demand_shares(events, weights, total_gpus).items():
        out.setdefault(tenant, {})
        out[tenant]["demand_fair_gpu_h"] = fair / 3.6e6
        out[tenant]["demand_received_gpu_h"] = received / 3.6e6
        out[tenant]["demand_share"] = received / fair if fair > 0 else None
    for tenant, tenant_events in events.items():
        tenant_events.sort(key=lambda e: e[0])
        e_gpus = entitled[tenant]
        held = 0
        queued = collections.Counter()
        waiting_ms = under_ms = 0
        deficit_gpu_ms = 0.0
        last = None
        i = 0
        while i < len(tenant_events):
            now = tenant_events[i][0]
            if last is not None and now > last and sum(queued.values()) > 0:
                span = now - last
                waiting_ms += span
                if held + min(g for g, n in queued.items() if n > 0) <= e_gpus:
                    under_ms += span
                queued_gpus = sum(g * n for g, n in queued.items())
                deficit_gpu_ms += max(0.0, min(held + queued_gpus, e_gpus) - held) * span
            while i < len(tenant_events) and tenant_events[i][0] == now:
                _, kind, gpus = tenant_events[i]
                if kind == "enqueue":
                    queued[gpus] += 1
                elif kind == "dequeue":
                    queued[gpus] -= 1
                elif kind == "hold":
                    held += gpus
                else:
                    held -= gpus
                i += 1
            last = now
        out[tenant].update({
            "waited_under_entitlement_s": under_ms / 1000,
            "waited_under_entitlement_share": under_ms / waiting_ms if waiting_ms else 0.0,
            "entitlement_deficit_gpu_h": deficit_gpu_ms / 3.6e6,
        })
    return summary, out


def water_fill(capacity, demands, weights):
    """Weighted max-min fair allocation: {tenant: GPUs}."""
    allocation = {t: 0.0 for t in demands}
    open_tenants = sorted((t for t in demands if weights[t] > 0 and demands[t] > 0),
                          key=lambda t: demands[t] / weights[t])
    left = float(capacity)
    weight_left = sum(weights[t] for t in open_tenants)
    for t in open_tenants:
        allocation[t] = min(demands[t], left / weight_left * weights[t])
        left -= allocation[t]
        weight_left -= weights[t]
    return allocation


def demand_shares(events, weights, total_gpus):
    """{tenant: (fair GPU-ms, received GPU-ms)} while any job is queued."""
    merged = sorted((time, tenant, kind, gpus)
                    for tenant, tenant_events in events.items()
                    for time, kind, gpus in tenant_events)
    held = collections.Counter()
    queued_gpus = collections.Counter()
    queued_jobs = 0
    fair = collections.Counter()
    received = collections.Counter()
    last = None
    i = 0
    while i < len(merged):
        now = merged[i][0]
        if last is not None and now > last and queued_jobs > 0:
            span = now - last
            demands = {t: held[t] + queued_gpus[t] for t in events}
            for t, gpus in water_fill(total_gpus, demands, weights).items():
                fair[t] += gpus * span
                received[t] += held[t] * span
        while i < len(merged) and merged[i][0] == now:
            _, tenant, kind, gpus = merged[i]
            if kind == "enqueue":
                queued_gpus[tenant] += gpus
                queued_jobs += 1
            elif kind == "dequeue":
                queued_gpus[tenant] -= gpus
                queued_jobs -= 1
            elif kind == "hold":
                held[tenant] += gpus
            else:
                held[tenant] -= gpus
            i += 1
        last = now
    return {t: (fair[t], received[t]) for t in events}


def compare(run_dir):
    summary, figures = recompute(run_dir)
    tolerance = {"waited_under_entitlement_s": 1e-3, "waited_under_entitlement_share": 1e-6,
                 "entitlement_deficit_gpu_h": 1e-6, "demand_fair_gpu_h": 1e-6,
                 "demand_received_gpu_h": 1e-6, "demand_share": 1e-6}
    mismatches = []
    for tenant, values in sorted(figures.items()):
        reported = summary["tenants"][tenant]
        for key, value in values.items():
            if value is None or reported[key] is None:
                if value != reported[key]:
                    mismatches.append(f"{run_dir}: {tenant} {key}: recomputed {value}, "
                                      f"summary.json {reported[key]}")
                continue
            if abs(value - reported[key]) > tolerance[key] * max(1.0, abs(value)):
                mismatches.append(f"{run_dir}: {tenant} {key}: recomputed {value}, "
                                  f"summary.json {reported[key]}")
    return figures, mismatches


def demand_share_index(figures):
    """(Jain's index, minimum) of the tenants' demand-aware shares; (1.0, None) when none."""
    shares = [f["demand_share"] for f in figures.values() if f.get("demand_share") is not None]
    if not shares:
        return 1.0, None
    squares = sum(x * x for x in shares)
    jain = sum(shares) ** 2 / (len(shares) * squares) if squares > 0 else 1.0
    return jain, min(shares)


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    failed = False
    for run_dir in argv[1:]:
        figures, mismatches = compare(run_dir)
        under_h = sum(v["waited_under_entitlement_s"] for v in figures.values()) / 3600
        deficit = sum(v["entitlement_deficit_gpu_h"] for v in figures.values())
        jain, least = demand_share_index(figures)
        print(f"{run_dir}: {len(figures)} tenants, waited under entitlement {under_h:.1f} h, "
              f"entitlement deficit {deficit:.1f} GPU-h, demand-aware share Jain {jain:.3f}, "
              f"min {least if least is None else round(least, 3)}")
        for line in mismatches:
            print(line)
        failed = failed or bool(mismatches)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
