"""smallest-first in Python, and a variant that preempts (docs/writing-policies.md).

SmallestFirst: queued jobs in order of the GPUs they ask for (fewer first), then submit time,
then trace order; by default the first job that does not fit blocks the rest (blocking=False
lets later jobs that fit pass it). The plug-in examples/plugin-policy/smallest_first.cpp and
this class make the same decisions. Citation: list scheduling by job size, D. G. Feitelson et
al., "Theory and practice in parallel job scheduling", JSSPP 1997.

SmallestFirstPreemptive: the same order; a head that does not fit preempts running preemptible
jobs that ask for strictly more GPUs than it and have run min_runtime seconds in their current
attempt, cheapest to preempt first (ctx.preemption_cost_gpu_ms) until the placement strategy
finds room, without the victims it turns out not to need; it then starts at once. A head that can
do neither blocks the queue and asks to be woken when a protected candidate becomes eligible.
"""
import bisect


class SmallestFirst:
    """Fewest GPUs first (ties: submit time, trace order); non-preemptive."""

    def __init__(self, blocking=True):
        self.blocking = blocking
        self.queue = []  # (gpus, submit_ms, job), sorted

    def on_submit(self, ctx, job):
        view = ctx.job(job)
        bisect.insort(self.queue, (view.gpus, view.submit_ms, job))

    on_requeue = on_submit

    def schedule(self, ctx, decisions):
        if self.blocking:
            started = 0
            while started < len(self.queue) and decisions.try_start(self.queue[started][2]):
                started += 1
            del self.queue[:started]
            return
        waiting = []
        for entry in self.queue:
            if ctx.cluster.free_gpus == 0 or not decisions.try_start(entry[2]):
                waiting.append(entry)
        self.queue = waiting


class SmallestFirstPreemptive(SmallestFirst):
    """Fewest GPUs first; a job that does not fit preempts larger jobs (cheapest first)."""

    def __init__(self, min_runtime=0.0):
        super().__init__(blocking=True)
        self.min_runtime_ms = round(min_runtime * 1000)

    def schedule(self, ctx, decisions):
        while self.queue:
            job = self.queue[0][2]
            if not decisions.try_start(job) and not self.preempt_for(ctx, decisions, job):
                return
            del self.queue[0]

    def preempt_for(self, ctx, decisions, job):
        """Preempts what `job` needs and starts it; False (nothing changed) if it cannot."""
        view = ctx.job(job)
        candidates, wake_ms = [], None
        for running in ctx.running:
            other = ctx.job(running)
            if not other.preemptible or other.gpus <= view.gpus:
                continue
            eligible_ms = other.last_start_ms + self.min_runtime_ms
            if eligible_ms > ctx.now:
                wake_ms = eligible_ms if wake_ms is None else min(wake_ms, eligible_ms)
                continue
            candidates.append((ctx.preemption_cost_gpu_ms(running), running))
        candidates.sort()
        victims, placement = [], None
        for _, running in candidates:
            victims.append(running)
            placement = self.place_without(ctx, view, victims)
            if placement is not None:
                break
        if placement is None:
            if wake_ms is not None:
                decisions.wake_at(wake_ms)
            return False
        for running in reversed(victims[:-1]):  # the most expensive first
            fewer = [v for v in victims if v != running]
            trial = self.place_without(ctx, view, fewer)
            if trial is not None:
                victims, placement = fewer, trial
        for running in victims:
            decisions.preempt(running)
        decisions.start(job, placement)
        return True

    @staticmethod
    def place_without(ctx, view, victims):
        """Where the strategy would put `view` were `victims` not running."""
        what_if = ctx.what_if
        for running in victims:
            what_if.release(running)
        placement = what_if.place(view.gpu_type, view.gpus)
        what_if.reset()
        return placement
