"""easy-backfill in Python: FIFO with EASY backfilling, decision for decision the built-in
`easy-backfill` (policies/easy_backfill.cpp, which states the algorithm and its citations:
Lifka 1995; Mu'alem and Feitelson 2001).

The first queued job that does not fit (the head) holds a reservation: the earliest time T at
which the placement strategy finds room for it once running jobs end at their walltime-based
ends, and GPUs P there. A later job starts now only if it cannot delay the head: it ends by T
(and goes on P's free GPUs first), or it fits among the GPUs outside P. The C++ version skips
work the result does not depend on (jobs too large for the free GPUs); this one tries them.
"""

NEVER = (1 << 63) - 1  # kNever: a time that never comes
ALL_GPUS = (1 << 64) - 1  # a node's GPU mask, all 64 bits


def lowest_bits(mask, count):
    """The `count` lowest set bits of `mask` (fewer if it has fewer)."""
    chosen = 0
    while count > 0 and mask:
        lowest = mask & -mask
        chosen |= lowest
        mask ^= lowest
        count -= 1
    return chosen


def first_within_nodes(placement, free, first):
    """`placement` with, on each of its nodes, as many GPUs chosen again among free(node):
    those in first(node) before the others, lowest index first in each group."""
    out = []
    for node, gpus in placement:
        pool = free(node)
        assert gpus & ~pool == 0, "a placement takes free GPUs"
        preferred = pool & first(node)
        count = bin(gpus).count("1")
        from_preferred = min(count, bin(preferred).count("1"))
        out.append((node, lowest_bits(preferred, from_preferred)
                    | lowest_bits(pool & ~preferred, count - from_preferred)))
    return out


class EasyBackfill:
    """FIFO; the first job that does not fit holds a reservation (time and GPUs) that later
    jobs may not delay."""

    def on_begin(self, ctx, sizes):
        self.valid = False  # whether the reservation stands
        self.reserved_job = 0
        self.reserved_ms = NEVER
        self.reserved = []  # P: [(node, mask)]

    def schedule(self, ctx, decisions):
        changes = ctx.changes
        if changes.ended_early or changes.nodes_changed:
            self.valid = False
        queue = ctx.queue
        self.start_from_head(ctx, decisions)
        if not queue:
            return
        full_pass = changes.released
        head = queue.head
        if not self.valid or self.reserved_job != head or self.reserved_ms <= ctx.now:
            self.compute_reservation(ctx, head)
            full_pass = True
        elif full_pass:
            self.rechoose_reserved_gpus(ctx)
        self.backfill(ctx, decisions, changes, full_pass)

    def started(self, job):
        if job == self.reserved_job:
            self.valid = False

    def start_from_head(self, ctx, decisions):
        queue, cluster = ctx.queue, ctx.cluster
        while queue:
            job = queue.head
            view = ctx.job(job)
            if cluster.free_gpus_of(view.gpu_type) >= view.gpus and decisions.try_start(job):
                self.started(job)
                continue
            if (self.valid and self.reserved_job == job and self.reserved_ms <= ctx.now
                    and cluster.can_allocate(self.reserved)):
                decisions.start(job, self.reserved)
                self.started(job)
                continue
            return

    def compute_reservation(self, ctx, head):
        self.reserved_job = head
        self.valid = True
        self.reserved_ms = NEVER
        self.reserved = []
        what_if = ctx.what_if
        view = ctx.job(head)
        running = ctx.running_by_walltime_end
        i = 0
        while i < len(running):
            end_ms = running[i][0]
            while i < len(running) and running[i][0] == end_ms:
                what_if.release(running[i][1])
                i += 1
            placement = what_if.place(view.gpu_type, view.gpus)
            if placement is not None:
                self.reserved_ms = max(end_ms, ctx.now)
                planned, now = what_if.cluster, ctx.cluster
                self.reserved = first_within_nodes(
                    placement, planned.node_free_mask,
                    lambda node: ~now.node_free_mask(node) & ALL_GPUS)
                break
        what_if.reset()

    def rechoose_reserved_gpus(self, ctx):
        if self.reserved_ms == NEVER:
            return
        slot = {node: i for i, (node, _) in enumerate(self.reserved)}
        back_by_t = [0] * len(self.reserved)
        for end_ms, job in ctx.running_by_walltime_end:
            if end_ms > self.reserved_ms:
                break
            for node, gpus in ctx.job(job).placement:
                if node in slot:
                    back_by_t[slot[node]] |= gpus
        cluster = ctx.cluster
        self.reserved = first_within_nodes(
            self.reserved, lambda node: cluster.node_free_mask(node) | back_by_t[slot[node]],
            lambda node: back_by_t[slot[node]])

    def can_fit_any(self, ctx):
        queue = ctx.queue
        return bool(queue) and ctx.cluster.free_gpus >= queue.smallest_gpus

    def backfill(self, ctx, decisions, changes, full_pass):
        if not self.can_fit_any(ctx):
            return
        queue = ctx.queue
        if not full_pass:
            fresh = sorted([(ctx.job(j).submit_ms, j) for j in changes.arrived]
                           + [(ctx.job(j).submit_ms, j) for j in changes.requeued])
            fresh = [j for _, j in fresh if j != self.reserved_job and j in queue]
            if not fresh:
                return
        what_if = ctx.what_if
        planned = what_if.cluster
        held = []
        for node, gpus in self.reserved:
            mask = gpus & planned.node_free_mask(node)
            if mask:
                held.append((node, mask))
        if held:
            what_if.hold(held)
        if full_pass:
            head = queue.head
            for job in list(queue):
                if not self.can_fit_any(ctx):
                    break
                if job != head:
                    self.try_backfill(ctx, decisions, job)
        else:
            for job in fresh:
                if not self.can_fit_any(ctx):
                    break
                self.try_backfill(ctx, decisions, job)
        what_if.reset()

    def reserved_mask_on(self, node):
        for reserved_node, gpus in self.reserved:
            if reserved_node == node:
                return gpus
        return 0

    def try_backfill(self, ctx, decisions, job):
        view = ctx.job(job)
        cluster = ctx.cluster
        if cluster.free_gpus_of(view.gpu_type) < view.gpus:
            return False
        if min(ctx.now + view.walltime_ms, NEVER) <= self.reserved_ms:
            # Back by T: on P's free GPUs first, keeping the spare ones for jobs past T.
            placement = decisions.find_placement(job)
            if placement is None:
                return False
            decisions.start(job, first_within_nodes(placement, cluster.node_free_mask,
                                                    self.reserved_mask_on))
        else:
            placement = ctx.what_if.place(view.gpu_type, view.gpus)
            if placement is None:
                return False
            decisions.start(job, placement)
        self.started(job)
        return True
