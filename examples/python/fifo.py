"""fifo in Python: strict first-come-first-served (submit time, then trace order) with
head-of-line blocking, as the built-in `fifo`."""


class Fifo:
    """First-come-first-served by submit time (ties: trace order); head-of-line blocking."""

    def schedule(self, ctx, decisions):
        queue = ctx.queue
        while queue:
            if not decisions.try_start(queue.head):
                return
