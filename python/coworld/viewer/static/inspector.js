"use strict";
// The replay inspector (spectators only): beside the selected ply, how its decision
// came to be. A Claude seat's calls come from the calls sidecar (/api/calls): the
// observation sent, the raw reply, thinking, the retry and its reason, tokens and
// cost. A Python seat's failed decision shows its exception; a fallback its cause.
let CALLS = { calls: [], note: null };
let callsPending = null;

async function loadCalls(path) {
  if (callsPending) return callsPending;
  callsPending = (async () => {
    try {
      const r = await fetch("/api/calls?path=" + encodeURIComponent(path));
      if (r.ok) CALLS = await r.json();
    } finally { callsPending = null; }
    if (typeof render === "function" && state.header) render();
  })();
  return callsPending;
}

function inspectorBlock(box, title, text, cls) {
  const h = document.createElement("h4");
  h.textContent = title;
  const pre = document.createElement("pre");
  if (cls) pre.className = cls;
  pre.textContent = text;
  box.append(h, pre);
}

function usageText(u) {
  if (!u) return "no usage recorded";
  const cache = (u.cache_read_input_tokens || 0) + (u.cache_creation_input_tokens || 0);
  const cost = u.cost_usd === undefined ? "" : ` · $${Number(u.cost_usd).toFixed(4)}`;
  return `${u.input_tokens || 0} input + ${u.output_tokens || 0} output tokens${cache ? ` (${cache} cache)` : ""}${cost}`;
}

function inspect(ply, aliasOf) {
  const box = document.querySelector("#inspector");
  if (!ply) { box.hidden = true; return; }
  box.hidden = false;
  box.replaceChildren();
  const h = document.createElement("h3");
  h.textContent = `Decision at ply ${ply.ply + 1}: ${aliasOf(ply.seat)} played ${ply.move} (${ply.origin}${ply.cause ? ": " + ply.cause : ""})`;
  box.append(h);
  const line = (text, cls) => { const d = document.createElement("div"); d.className = cls || ""; d.textContent = text; box.append(d); };
  if (ply.origin === "fallback") line(`the family's fallback baseline moved: ${ply.cause}`, "fallback-cause");
  const records = ply.attempts || [];
  for (const r of records.filter((x) => x.type === "python")) {
    line(`Python policy: ${r.outcome}${r.reason ? " - " + r.reason : ""} (${r.latency} s)`, "python-reason");
  }
  for (const r of records.filter((x) => x.type === "human")) {
    line(`human: ${r.outcome}${r.reason ? " - " + r.reason : ""}; ${r.rejected} input(s) refused first; ${r.latency} s`);
  }
  const calls = CALLS.calls.filter((c) => c.ply === ply.ply && c.seat === ply.seat);
  if (!calls.length && records.some((x) => x.type === "call")) {
    line(CALLS.note || "the calls sidecar does not hold this decision", "muted");
    for (const r of records.filter((x) => x.type === "call")) {
      line(`attempt ${r.attempt + 1}: ${r.outcome}${r.reason ? " - " + r.reason : ""} · ${usageText(r.usage)}`);
    }
  }
  for (const c of calls) {
    const part = document.createElement("div");
    part.className = "attempt";
    part.dataset.attempt = String(c.attempt);
    const head = document.createElement("div");
    head.className = "attempt-head";
    head.textContent = `attempt ${c.attempt + 1}: ${c.outcome}${c.reason ? " - " + c.reason : ""} · ${usageText(c.usage)}${c.latency !== null && c.latency !== undefined ? ` · ${c.latency} s` : ""}`;
    part.append(head);
    if (c.bulkOmitted) { const d = document.createElement("div"); d.className = "muted"; d.textContent = "text omitted: the sidecar reached its size cap"; part.append(d); }
    if (c.attempt === 0 && c.observation) renderObservation(part.appendChild(document.createElement("div")), c.observation, "observation sent");
    if (c.retryMessage) inspectorBlock(part, "retry message sent", c.retryMessage, "retry-message");
    if (c.thinking) inspectorBlock(part, "thinking", c.thinking, "thinking");
    inspectorBlock(part, "raw reply", c.raw === null || c.raw === undefined ? "(no reply)" : c.raw, "raw-reply");
    box.append(part);
  }
  if (!calls.length && !records.length) line("a scripted move: nothing to inspect", "muted");
}
