"""One concurrency bound for all judge calls, shrinking when the endpoint answers 429.

Additive increase, multiplicative decrease: a 429 halves the allowed calls in flight,
each success lets one more through again, never above the configured bound.
"""

from __future__ import annotations

import asyncio


class AdaptiveLimiter:
    def __init__(self, bound: int):
        self.bound = bound
        self.limit = bound
        self.in_flight = 0
        self._changed = asyncio.Condition()

    async def acquire(self) -> None:
        async with self._changed:
            await self._changed.wait_for(lambda: self.in_flight < self.limit)
            self.in_flight += 1

    async def release(self, throttled: bool) -> None:
        async with self._changed:
            self.in_flight -= 1
            if throttled:
                self.limit = max(1, self.limit // 2)
            elif self.limit < self.bound:
                self.limit += 1
            self._changed.notify_all()
