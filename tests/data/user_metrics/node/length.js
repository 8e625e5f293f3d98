// A metric program in another language: one case as JSON on stdin, a score on stdout.
// The score is the share of expected words that the final response contains.
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const instance = JSON.parse(input);
  const words = (s) => (s || "").toLowerCase().split(/\W+/).filter(Boolean);
  const wanted = words(instance.reference);
  const got = new Set(words(instance.response));
  const hit = wanted.filter((w) => got.has(w)).length;
  const score = wanted.length ? hit / wanted.length : 1;
  console.error(`scored ${instance.eval_id}: ${hit}/${wanted.length}`);
  console.log(JSON.stringify({ score, explanation: `${hit} of ${wanted.length} expected words` }));
});
