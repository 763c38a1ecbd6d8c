"use strict";
// The episode player: steps through a replay's spectator views.
const $ = (sel) => document.querySelector(sel);
const params = new URLSearchParams(location.search);
let CATALOG = null;  // the core's game catalogue, from /api/catalog

const state = { header: null, plies: [], results: null, deadline: false, step: 0, timer: null, perspective: null, live: false };

// The catalogue entry of the game on the board (rotate: the game it drew).
function entry() { return CATALOG.games[state.header.resolvedGame]; }
function family(game) { return CATALOG.games[game].family; }
// A seat's name in the feed: its colour where the game names seats, else its alias.
function seatName(seat) { return entry().seatNames[seat] || state.header.seats[seat].alias; }
function alias(seat) { return state.header.seats[seat].alias; }
function viewAt(step) { return step === 0 ? state.header.view : state.plies[step - 1].view; }
function maxStep() { return state.plies.length; }

function ingest(event) {
  if (event.type === "header") state.header = event;
  else if (event.type === "ply") state.plies.push(event);
  else if (event.type === "deadline") state.deadline = true;
  else if (event.type === "results") state.results = event.results;
}

function renderSeats() {
  const box = $("#seats");
  box.replaceChildren();
  state.header.seats.forEach((s) => {
    const d = document.createElement("div");
    const tag = document.createElement("span");
    tag.className = "seat seat" + s.seat;
    tag.textContent = s.alias;
    d.append(tag, document.createTextNode(entry().seatNames.length ? `  plays ${seatName(s.seat)}` : `  seat ${s.seat}`));
    box.append(d);
  });
  const game = state.header.resolvedGame;
  const variant = state.header.config.variant;  // fog: its port, or "original variant (...)"
  $("#title").textContent = `${game}${state.header.game !== game ? " (rotate)" : ""}${variant ? ` · ${variant}` : ""} · seed ${state.header.config.seed}`;
  document.title = `coworld · ${game}`;
  if (family(game) === "fog") {
    const t = $("#fog-toggle");
    t.hidden = false;
    t.replaceChildren();
    for (const [label, value] of [["truth", null], [`${seatName(0)} knows`, 0], [`${seatName(1)} knows`, 1]]) {
      const b = document.createElement("button");
      b.textContent = label;
      b.dataset.perspective = value === null ? "truth" : String(value);
      b.className = state.perspective === value ? "active" : "";
      b.onclick = () => { state.perspective = value; renderSeats(); render(); };
      t.append(b);
    }
  }
}

function scorebug(v) {
  const box = $("#scorebug");
  box.replaceChildren();
  const item = (seat, text) => {
    const s = document.createElement("span");
    s.className = seat === null ? "" : "seat seat" + seat;
    s.textContent = text;
    box.append(s);
  };
  const fam = family(state.header.resolvedGame);
  if (fam === "fog") {
    v.distToWin.forEach((d, seat) => item(seat, `${alias(seat)} · ${seatName(seat)} distToWin ${d}`));
    item(null, `ply ${v.plies}/${v.maxPlies}`);
  } else if (fam === "gauntlet") {
    v.standing.forEach((s, seat) => item(seat, `${alias(seat)} · ${seatName(seat)} standing ${s}`));
    item(null, `ply ${v.plies}/${v.maxPlies}`);
  } else {
    item(null, `score ${v.score}`);
    item(null, `hint tokens ${v.hintTokens}`);
    item(null, `fuses ${v.fuses}`);
    item(null, `deck ${v.deckCount}`);
    item(null, `turn ${v.turn}/${v.maxTurns}`);
  }
}

function evalbar(v) {
  const scale = entry().standingScale;
  const wrap = $("#evalwrap");
  if (!scale) { wrap.hidden = true; return; }
  wrap.hidden = false;
  const red = redShare(v.standing, scale);
  $("#evalbar .fill").style.height = `${(100 * red).toFixed(1)}%`;
  $("#evalbar").dataset.red = red.toFixed(3);
  $("#evalbar").dataset.scale = String(scale);
}

function feed() {
  const box = $("#feed");
  box.replaceChildren();
  state.plies.forEach((p, i) => {
    const d = document.createElement("div");
    d.textContent = `${p.ply + 1}. ${p.feed}`;
    if (p.origin === "retry" || p.origin === "fallback") {
      const o = document.createElement("span");
      o.className = "origin";
      o.textContent = `  [${p.origin}: ${p.cause}]`;
      d.append(o);
    }
    for (const r of p.revelations || []) d.append(revelationLine(r));
    if (i === state.step - 1) d.className = "current";
    box.append(d);
  });
  const cur = box.querySelector(".current");
  if (cur) cur.scrollIntoView({ block: "nearest" });
}

// A revelation record of any family (the SDK's shape): what became known, where, to whom.
function revelationText(value) {
  if (value === null || value === undefined) return "";
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) return value.map(revelationText).join(", ") || "none";
  return Object.entries(value).map(([k, v]) => `${k} ${revelationText(v) || "none"}`).join("; ");
}
function revelationLine(r) {
  const line = document.createElement("div");
  line.className = "revelation";
  const to = (r.revealedTo || []).map(seatName).join(", ");
  const where = r.where === null || r.where === undefined ? "" : ` at ${revelationText(r.where)}`;
  const identity = "identity" in r ? `: ${revelationText(r.identity)}` : "";
  line.textContent = `  revealed to ${to}: ${r.what}${where}${identity}`;
  return line;
}

function bubbles() {
  const box = $("#bubbles");
  box.replaceChildren();
  const p = state.plies[state.step - 1];
  if (!p) return;
  for (const text of [p.say, p.banner]) {
    if (!text) continue;
    const b = document.createElement("div");
    b.className = "bubble";
    b.textContent = `${p.alias}: “${text}”`;
    box.append(b);
  }
}

function endcard() {
  const box = $("#endcard");
  const r = state.results;
  if (!r || state.step !== maxStep()) { box.className = "card"; box.replaceChildren(); return; }
  box.className = "card shown";
  const h = document.createElement("h2");
  if (entry().cooperative) h.textContent = `Shared score ${r.score[0]}`;
  else h.textContent = r.winner === null || r.winner === undefined ? "Draw" : `${state.header.seats[r.winner].alias} (${seatName(r.winner)}) wins`;
  const p = document.createElement("p");
  p.textContent = `reason ${r.reason} · ending ${r.ending} · score ${r.score.join(" : ")} · ${r.plies} plies`;
  box.replaceChildren(h, p);
}

function render() {
  const v = viewAt(state.step);
  const game = state.header.resolvedGame;
  const svg = $("#board");
  svg.replaceChildren();
  let count;
  if (family(game) === "hanabi") {
    svg.style.display = "none";
    count = renderHanabi($("#table"), v, state.header.seats.map((s) => s.alias));
    $("#stone-count").textContent = `${count} ${entry().pieces} in hands`;
  } else {
    const draw = family(game) === "fog" ? Boards.fog : Boards[game];
    count = draw(svg, v, state.perspective);
    $("#stone-count").textContent = `${count} ${entry().pieces} on the board`;
  }
  $("#stone-count").dataset.count = String(count);
  scorebug(v);
  evalbar(v);
  feed();
  bubbles();
  endcard();
  inspect(state.plies[state.step - 1], alias);
  $("#scrub").max = String(maxStep());
  $("#scrub").value = String(state.step);
  $("#step").textContent = `${state.step}/${maxStep()}`;
}

function go(step) { state.step = Math.max(0, Math.min(maxStep(), step)); render(); }
function togglePlay() {
  if (state.timer) { clearInterval(state.timer); state.timer = null; $("#play").textContent = "play"; return; }
  $("#play").textContent = "pause";
  state.timer = setInterval(() => { if (state.step >= maxStep()) { if (!state.live) togglePlay(); } else go(state.step + 1); }, 600);
}

function wire() {
  $("#first").onclick = () => go(0);
  $("#prev").onclick = () => go(state.step - 1);
  $("#next").onclick = () => go(state.step + 1);
  $("#last").onclick = () => go(maxStep());
  $("#play").onclick = togglePlay;
  $("#scrub").oninput = (e) => go(parseInt(e.target.value, 10));
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") go(state.step - 1);
    else if (e.key === "ArrowRight") go(state.step + 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(maxStep());
    else if (e.key === " ") { e.preventDefault(); togglePlay(); }
  });
}

async function main() {
  wire();
  CATALOG = await (await fetch("/api/catalog")).json();
  const path = params.get("path");
  if (params.get("live") === "1") {
    state.live = true;
    $("#live").textContent = "● live";
    const source = new EventSource("/api/stream?path=" + encodeURIComponent(path));
    source.onmessage = (m) => {
      const atEnd = state.step === maxStep();
      ingest(JSON.parse(m.data));
      if (!state.header) return;
      if (state.plies.length === 0 || document.querySelector("#seats").childElementCount === 0) renderSeats();
      if (atEnd) state.step = maxStep();
      if (state.plies.length && state.plies[state.plies.length - 1].usage) loadCalls(path);
      render();
    };
    source.addEventListener("end", () => { source.close(); $("#live").textContent = "finished"; });
    return;
  }
  const response = await fetch("/api/replay?path=" + encodeURIComponent(path));
  const body = await response.text();
  if (!response.ok) {
    // a garbage replay: the server's one-line reason (file, line, problem), not a blank page
    let reason = `cannot load ${path} (HTTP ${response.status} ${body.trim()})`;
    try { reason = JSON.parse(body).error || reason; } catch (e) { /* not JSON: keep it */ }
    $("#error").textContent = reason;
    $("#error").hidden = false;
    return;
  }
  JSON.parse(body).forEach(ingest);
  await loadCalls(path);
  renderSeats();
  go(params.has("step") ? parseInt(params.get("step"), 10) : 0);
}

main();
