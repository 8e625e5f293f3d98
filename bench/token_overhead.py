"""Overhead per turn of `auth:` token handling against the same requests with a fixed header.

A loopback Cloud Run-style service (tests/fakes/google_auth.py: every request's ID token checked)
gets TURNS POSTs at concurrency 8 through the agents' own client (AgentHttp), interleaved,
REPEATS times each, the best repeat's wall time reported (a shared machine's noise only adds):
- fixed:     `headers: {Authorization: Bearer ...}`, a token fetched once beforehand (the anchor);
- auth:      `auth: google` (google-auth, a service-account key whose token_uri is the loopback
             token endpoint), tokens lasting an hour: one fetch, timed apart, before the turns;
- rotating:  the same with tokens lasting ROTATE_S seconds: each refresh's cost, counted apart.

And, apart from any server and its noise, the token handling alone: the same requests through
an httpx client over a MockTransport, with and without BearerAuth (a token valid for an hour).

The goal: no measurable cost per turn beyond one refresh an hour.

    python bench/token_overhead.py [--turns 2000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from agenteval_ci.agents.remote.auth import BearerAuth, GoogleTokens, Token, Tokens  # noqa: E402
from agenteval_ci.agents.remote.http import AgentHttp  # noqa: E402
from tests.fakes.google_auth import FakeCloudRun, FakeTokenEndpoint, service_account_file  # noqa: E402

CONCURRENCY = 8
ROTATE_S = 0.5


async def _turns(http: AgentHttp, url: str, turns: int) -> float:
    bound = asyncio.Semaphore(CONCURRENCY)

    async def one(i: int) -> None:
        async with bound:
            await http.send("POST", url, "", json={"session_id": "s", "message": f"weather in {i}", "state": {}})

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(turns)))
    elapsed = time.perf_counter() - started
    await http.close()
    return elapsed


def fixed(url: str, token: str, turns: int) -> float:
    return asyncio.run(_turns(AgentHttp({"Authorization": f"Bearer {token}"}, CONCURRENCY), url, turns))


def with_auth(url: str, turns: int) -> tuple[float, float, int]:
    """(seconds of the first fetch, seconds of the turns after it, fetches): the first fetch is
    once a suite, the anchor's token was fetched before its clock started too."""
    tokens = Tokens(GoogleTokens(url.rsplit("/", 1)[0]))

    async def go() -> tuple[float, float]:
        started = time.perf_counter()
        await tokens.current()
        first = time.perf_counter() - started
        return first, await _turns(AgentHttp({}, CONCURRENCY, auth=BearerAuth(tokens, url)), url, turns)

    first, elapsed = asyncio.run(go())
    return first, elapsed, tokens.fetches


class _HourLong:
    credential = "a token valid for an hour"

    def fetch(self) -> Token:
        return Token("t" * 900, time.monotonic() + 3600)


def flow_only(turns: int, with_auth: bool) -> float:
    """Seconds for `turns` sequential requests to a MockTransport: the client's own work."""
    async def go() -> float:
        auth = BearerAuth(Tokens(_HourLong()), "http://svc") if with_auth else None
        transport = httpx.MockTransport(lambda request: httpx.Response(200, json={}))
        async with httpx.AsyncClient(transport=transport, auth=auth, headers={} if with_auth else {"Authorization": "Bearer " + "t" * 900}) as client:
            started = time.perf_counter()
            for _ in range(turns):
                await client.post("http://svc/turn", json={"message": "hi"})
            return time.perf_counter() - started

    return asyncio.run(go())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeTokenEndpoint(lifetime=3600) as hourly, FakeTokenEndpoint(lifetime=ROTATE_S) as short:
        results: dict[str, list[float]] = {"fixed": [], "auth": [], "rotating": []}
        fetches: list[int] = []
        refused = dict.fromkeys(results, 0)
        first_fetch: list[float] = []
        for _ in range(args.repeats):
            for name in results:
                endpoint = short if name == "rotating" else hourly
                os.environ["GOOGLE_APPLICATION_CREDENTIALS"] = str(service_account_file(Path(tmp) / f"{name}.json", endpoint.token_uri))
                with FakeCloudRun(endpoint) as service:
                    service._server.RequestHandlerClass.disable_nagle_algorithm = True  # headers and body are two writes
                    url = f"{service.root_url}/turn"
                    if name == "fixed":
                        token = endpoint.issue(service.root_url)["id_token"]
                        results[name].append(fixed(url, token, args.turns))
                    else:
                        first, elapsed, count = with_auth(url, args.turns)
                        results[name].append(elapsed)
                        first_fetch.append(first)
                        if name == "rotating":
                            fetches.append(count)
                    refused[name] += service.refusals
    anchor = min(results["fixed"])
    per_turn = lambda seconds: seconds / args.turns * 1000 * CONCURRENCY  # ms a turn waits, at concurrency 8
    print(f"{args.turns} turns at concurrency {CONCURRENCY}, best of {args.repeats} interleaved repeats")
    print(f"  fixed header (anchor): {anchor:.3f}s  ({per_turn(anchor):.2f} ms a turn)")
    for name in ("auth", "rotating"):
        wall = min(results[name])
        print(f"  {name:<20} {wall:.3f}s  ({wall / anchor:.2f}x; {per_turn(wall - anchor):+.2f} ms a turn)")
    print(f"  the first fetch (once a suite: google-auth signs and posts a JWT): {statistics.median(first_fetch) * 1000:.0f} ms (median)")
    refreshes = statistics.median(fetches)
    extra = min(results["rotating"]) - min(results["auth"])
    print(f"  rotating: {refreshes:g} fetches for tokens of {ROTATE_S:g}s, about {extra / max(refreshes - 1, 1) * 1000:.1f} ms each")
    print(f"  requests answered 401 (then retried once with a new token): {refused}")
    flows: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(args.repeats):
        for authed_flow in (False, True):
            flows[authed_flow].append(flow_only(args.turns, authed_flow))
    plain, authed = min(flows[False]), min(flows[True])
    print(f"  token handling alone (MockTransport, {args.turns} requests): {plain / args.turns * 1e6:.0f} us a request with a fixed header, "
          f"{authed / args.turns * 1e6:.0f} us with auth ({(authed - plain) / args.turns * 1e6:+.0f} us)")
    print("  spread of the anchor's repeats: " + ", ".join(f"{s:.3f}" for s in sorted(results["fixed"])))


if __name__ == "__main__":
    main()
