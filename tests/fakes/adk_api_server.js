#!/usr/bin/env node
// A stand-in for @google/adk-devtools' `adk` CLI, for tests: `adk api_server AGENT --host H --port P`
// serves the part of ADK's API that agenteval's `kind: adk_api_server` uses (GET /list-apps,
// POST /apps/{app}/users/{user}/sessions, POST /run), with the events a weather agent's turn
// produces: a forecast tool call, its response, the answer. No model, no network but loopback.
"use strict";
const http = require("node:http");
const crypto = require("node:crypto");

const [command, agent, ...flags] = process.argv.slice(2);
const option = (name, fallback) => {
  const at = flags.indexOf(name);
  return at >= 0 ? flags[at + 1] : fallback;
};
if (command !== "api_server" || !agent) {
  console.error("usage: adk api_server AGENT --host HOST --port PORT");
  process.exit(2);
}
const app = require("node:path").basename(agent).replace(/\.[cm]?[jt]s$/, "");
const sessions = new Map();
const SKIES = { oslo: "snow", lisbon: "sunny" };

function reply(res, status, body) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

function turn(message) {
  const text = (message.parts || []).map((p) => p.text || "").join(" ");
  const city = (/in (\w+)/.exec(text) || [])[1] || "nowhere";
  const sky = SKIES[city.toLowerCase()] || "cloudy";
  const invocationId = `e-${crypto.randomUUID()}`;
  const id = `call-${crypto.randomUUID()}`;
  const event = (content) => ({ id: crypto.randomUUID(), author: app, invocationId, content });
  return [
    event({ role: "model", parts: [{ functionCall: { id, name: "forecast", args: { city } } }] }),
    event({ role: "user", parts: [{ functionResponse: { id, name: "forecast", response: { city, sky } } }] }),
    event({ role: "model", parts: [{ text: sky === "snow" ? `Tomorrow it snows in ${city}.` : `Tomorrow it is ${sky} in ${city}.` }] }),
  ];
}

http.createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    const data = body ? JSON.parse(body) : {};
    const created = /^\/apps\/([^/]+)\/users\/([^/]+)\/sessions(?:\/([^/]+))?$/.exec(req.url);
    if (req.method === "GET" && req.url === "/list-apps") return reply(res, 200, [app]);
    if (req.method === "POST" && created) {
      if (decodeURIComponent(created[1]) !== app) return reply(res, 404, { detail: `no app ${created[1]}` });
      const id = created[3] ? decodeURIComponent(created[3]) : data.sessionId || crypto.randomUUID();
      sessions.set(id, data.state || {});
      return reply(res, 200, { id, appName: app, userId: decodeURIComponent(created[2]), state: data.state || {}, events: [] });
    }
    if (req.method === "POST" && req.url === "/run") {
      if (data.appName !== app || !sessions.has(data.sessionId)) return reply(res, 404, { detail: "Session not found" });
      return reply(res, 200, turn(data.newMessage || {}));
    }
    return reply(res, 404, { detail: `no route ${req.method} ${req.url}` });
  });
}).listen(Number(option("--port", "8000")), option("--host", "127.0.0.1"));
