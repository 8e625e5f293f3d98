// A weather agent for agenteval's tests: it speaks agenteval's JSON contract and reports what it
// did only through OpenTelemetry spans (GenAI semantic conventions), exported over OTLP/HTTP with
// the standard SDK to the endpoint in OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, protobuf or JSON as
// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL says. AGENT_BUG=1 is a regressing edit (the wrong city).
const http = require("node:http");
const { context, propagation, trace } = require("@opentelemetry/api");
const { NodeTracerProvider, BatchSpanProcessor } = require("@opentelemetry/sdk-trace-node");

const json = process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL === "http/json";
const { OTLPTraceExporter } = require(json ? "@opentelemetry/exporter-trace-otlp-http" : "@opentelemetry/exporter-trace-otlp-proto");
const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
provider.register(); // also the W3C trace-context propagator: our spans join the caller's trace
const tracer = trace.getTracer("weather-agent");

function getWeather(city) {
  return { city, sky: city === "Oslo" ? "snow" : "sunny" };
}

function answer(body) {
  const city = (/weather in (\w+)/.exec(body.message) || [])[1] || "nowhere";
  const asked = process.env.AGENT_BUG === "1" ? "Paris" : city;
  const result = tracer.startActiveSpan(`execute_tool get_weather`, { attributes: {
    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.agent.name": "weather",
    "gen_ai.tool.call.arguments": JSON.stringify({ city: asked }),
  } }, (span) => {
    const weather = getWeather(asked);
    span.setAttribute("gen_ai.tool.call.result", JSON.stringify(weather));
    span.end();
    return weather;
  });
  const text = `It is ${result.sky} in ${result.city}.`;
  tracer.startActiveSpan("chat fake-model", { attributes: {
    "gen_ai.operation.name": "chat", "gen_ai.request.model": "fake-model", "gen_ai.agent.name": "weather",
    "gen_ai.usage.input_tokens": 20, "gen_ai.usage.output_tokens": 8,
    "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: text }] }]),
  } }, (span) => span.end());
  return { response: text };
}

http.createServer((req, res) => {
  let data = "";
  req.on("data", (chunk) => (data += chunk));
  req.on("end", () => {
    const body = JSON.parse(data);
    const parent = propagation.extract(context.active(), req.headers);
    const reply = tracer.startActiveSpan("invoke_agent weather", { attributes: {
      "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather", "gen_ai.conversation.id": body.session_id,
    } }, parent, (span) => {
      const out = answer(body);
      span.end();
      return out;
    });
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(reply));
  });
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log(`listening on ${process.env.PORT}`));

process.on("SIGTERM", () => provider.shutdown().finally(() => process.exit(0)));
