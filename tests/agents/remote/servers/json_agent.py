"""A JSON-contract agent for the tests (stdlib only), started by agenteval through `start:`.

It answers weather questions: `weather in CITY` calls get_weather(city) and answers with the sky.
AGENT_REQUESTS names a file each request body is appended to. AGENT_OMIT_STATE leaves `state` out of the replies. AGENT_MODE picks a fault: ok, http500, garbage, hang, die_after:N, never_ready, wrong_city.
It writes its pid and its children's to AGENT_PIDS (one a line) so tests can check for orphans.
"""

import json
import os
import re
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = os.environ.get("AGENT_MODE", "ok")
PORT = int(os.environ["PORT"])
served = 0

if os.environ.get("AGENT_PIDS"):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])  # a grandchild to reap
    with open(os.environ["AGENT_PIDS"], "a") as f:
        f.write(f"pgid {os.getpgid(0)}\n{os.getpid()}\n{child.pid}\n")

if MODE == "never_ready":
    print("starting, but never listening", flush=True)
    time.sleep(3600)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        global served
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        served += 1
        if os.environ.get("AGENT_REQUESTS"):  # what each turn received, one JSON a line
            with open(os.environ["AGENT_REQUESTS"], "a") as f:
                f.write(json.dumps(body) + "\n")
        if MODE.startswith("die_after:") and served > int(MODE.split(":")[1]):
            print("crashing now", flush=True)
            os._exit(3)
        if MODE == "hang":
            time.sleep(3600)
        if MODE == "http500":
            return self._send(500, b'{"error": "database unavailable"}')
        if MODE == "garbage":
            return self._send(200, b"<html>oops</html>")
        match = re.search(r"weather in (\w+)", body["message"])
        city = match[1] if match else "nowhere"
        if MODE == "wrong_city":
            city = "Paris"
        state = dict(body["state"], turns=body["state"].get("turns", 0) + 1)
        reply = {
            "response": f"It is sunny in {city}. (turn {state['turns']}, {body['state'].get('user', 'anon')})",
            "tool_calls": [{"name": "get_weather", "args": {"city": city}, "response": {"sky": "sunny"}}],
            "usage": {"input_tokens": 12, "output_tokens": 7},
            "model": "gemini-2.5-flash",
            "state": state,
        }
        if os.environ.get("AGENT_OMIT_STATE"):  # an agent that keeps no state hands none back
            del reply["state"]
        self._send(200, json.dumps(reply).encode())

    def _send(self, status, data):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


print(f"listening on {PORT}", flush=True)
ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
