"use strict";
const $ = (sel) => document.querySelector(sel);
const fmt = (x) => (x === null || x === undefined || Number.isNaN(x)) ? "-" : (x >= 0 ? "+" : "") + x.toFixed(3);

function cell(text, cls) { const td = document.createElement("td"); td.textContent = text; if (cls) td.className = cls; return td; }

async function loadLeague() {
  const data = await (await fetch("/api/league")).json();
  $("#league-name").textContent = data.league ? `league ${data.league}` : "no league database here";
  const body = $("#standings tbody");
  for (const s of data.standings) {
    const tr = document.createElement("tr");
    tr.append(cell(s.game), cell(s.policy), cell(String(s.n), "num"), cell(String(s.pairs), "num"),
      cell(fmt(s.mean), "num"), cell(s.lo === null ? "-" : `[${fmt(s.lo)}, ${fmt(s.hi)}]`, "num"),
      cell((s.flags || []).join(", "), (s.flags || []).length ? "warn" : ""));
    body.append(tr);
  }
  const notes = $("#standings-warnings");
  for (const w of data.warnings || []) { const li = document.createElement("li"); li.textContent = w; notes.append(li); }
  const elo = (x) => (x === null || x === undefined) ? "-" : (x >= 0 ? "+" : "") + x.toFixed(0);
  const ratings = $("#ratings tbody");
  for (const r of data.ratings || []) {
    const tr = document.createElement("tr");
    tr.append(cell(r.game), cell(r.policy), cell(String(r.games), "num"), cell(elo(r.elo), "num"),
      cell(`[${elo(r.lo)}, ${elo(r.hi)}]`, "num"));
    ratings.append(tr);
  }
  if (data.plot) { const img = $("#plot"); img.src = "/files/" + data.plot; img.style.display = "block"; }
  const rel = $("#reliability tbody");
  for (const [policy, r] of Object.entries(data.reliability)) {
    if (!r.decisions) continue;
    const tr = document.createElement("tr");
    tr.append(cell(policy), cell(String(r.decisions), "num"), cell(String(r.retries), "num"), cell(String(r.fallbacks), "num"));
    for (const c of ["unparseable", "illegal", "timeout", "error", "no-credentials"])
      tr.append(cell((100 * r["fallback_rate:" + c]).toFixed(2) + "%", "num"));
    tr.append(cell(r.tokens.toLocaleString(), "num"), cell(r.cost_usd.toFixed(2), "num"));
    rel.append(tr);
  }
  for (const [id, values] of [["#f-game", data.games], ["#f-policy", data.policies], ["#f-ending", data.endings]]) {
    for (const v of values) { const o = document.createElement("option"); o.value = o.textContent = v; $(id).append(o); }
    $(id).addEventListener("change", loadEpisodes);
  }
  loadEpisodes();
}

async function loadEpisodes() {
  const q = new URLSearchParams({ game: $("#f-game").value, policy: $("#f-policy").value, ending: $("#f-ending").value });
  const data = await (await fetch("/api/episodes?" + q)).json();
  $("#episode-count").textContent = `${data.total} episodes with replays`;
  const body = $("#episodes tbody");
  body.replaceChildren();
  for (const e of data.episodes) {
    const tr = document.createElement("tr");
    tr.append(cell(e.game === e.played ? e.game : `${e.game} (${e.played})`), cell(e.seats.join(" vs ")),
      cell(`${e.reason} / ${e.ending}`), cell(e.score.join(" "), "num"), cell(String(e.plies), "num"), cell(String(e.seed), "num"));
    const td = document.createElement("td");
    if (e.replay) { const a = document.createElement("a"); a.href = "/episode?path=" + encodeURIComponent(e.replay); a.textContent = "watch"; td.append(a); }
    tr.append(td);
    body.append(tr);
  }
}

async function loadLive() {
  const data = await (await fetch("/api/live")).json();
  $("#live-card").hidden = data.live.length === 0;
  const list = $("#live-list");
  list.replaceChildren();
  for (const path of data.live) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "/episode?live=1&path=" + encodeURIComponent(path);
    a.textContent = path;
    li.append(a);
    list.append(li);
  }
}

// A league that fields `human`: the link of each human seat of the episode in play.
async function loadHumans() {
  const response = await fetch("/api/humans");
  const seats = response.ok ? (await response.json()).seats : [];
  $("#humans-card").hidden = seats.length === 0;
  const list = $("#humans-list");
  list.replaceChildren();
  for (const s of seats) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = s.path;
    a.textContent = `${s.game}: seat ${s.seat} (${s.alias})`;
    li.append(a);
    list.append(li);
  }
}

loadLeague();
loadLive();
loadHumans();
setInterval(loadLive, 5000);
setInterval(loadHumans, 2000);
