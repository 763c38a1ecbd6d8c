"use strict";
// A human seat's page: it reads only its own link's JSON (`./view`), draws the seat's
// view, turns clicks into moves in the game's notation and posts them (`./move`).
// It never decides legality itself: the server answers every move with the move it
// played, or the reason and the legal set.
const $ = (sel) => document.querySelector(sel);
const BASE = location.pathname.replace(/\/+$/, "");
const POLL_MS = 150;

let CATALOG = null;      // the core's game catalogue (/api/catalog): names, notation, scales

let payload = null;      // the last answer of ./view
let lastBody = "";       // its text, to redraw only on a change
let picked = [];         // clicks so far toward one move (an anchor, a piece, a card, a hint target)
let sending = false;
let asked = 0;           // ./view requests sent so far
let floor = 0;           // answers to requests up to this one are stale: dropped

// The catalogue entry of this seat's game.
function entry() { return CATALOG.games[payload.game]; }
const seatName = (seat) => entry().seatNames[seat] || `seat ${seat}`;

async function refresh() {
  if (sending) return;
  const mine = ++asked;
  let response;
  try { response = await fetch(BASE + "/view", { cache: "no-store" }); } catch (e) { return; }
  const body = await response.text();
  if (mine <= floor) return;  // an older position than the one on screen
  floor = mine;
  if (!response.ok) { showError(JSON.parse(body).error || body, ""); return; }
  if (body === lastBody) return;
  lastBody = body;
  payload = JSON.parse(body);
  if (!payload.yourTurn) picked = [];
  render();
}

async function play(move) {
  if (sending) return;
  sending = true;
  $("#status").textContent = `sending ${move}`;
  $("#status").dataset.turn = "sending";
  const body = { move, say: $("#say").value, notes: $("#notes").value };
  try {
    const response = await fetch(BASE + "/move", {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (response.ok) {
      hideError();
      $("#say").value = "";
      $("#move").value = "";
      $("#picked").textContent = `you played ${answer.played}`;
    } else {
      showError(answer.error, answer.legalText);
    }
  } finally {
    floor = asked;  // whatever was asked before the move is stale now
    picked = [];
    sending = false;
    lastBody = "";
    await refresh();
  }
}

function showError(reason, legalText) {
  $("#error").textContent = `not played: ${reason}`;
  $("#error").hidden = false;
  $("#legal").textContent = legalText || "";
  $("#legal").hidden = !legalText;
}
function hideError() { $("#error").hidden = true; $("#legal").hidden = true; }

// ---- drawing ------------------------------------------------------------------

function render() {
  const p = payload, v = p.view;
  $("#title").textContent = `${p.game} · you are seat ${p.seat}`;
  document.title = `coworld · ${p.game} · seat ${p.seat}`;
  $("#status").textContent = p.finished ? "game over" : p.yourTurn ? "your turn" : "waiting for the other seats";
  $("#status").dataset.turn = p.yourTurn ? "yours" : p.finished ? "over" : "theirs";
  const svg = $("#board");
  svg.replaceChildren();
  $("#table").replaceChildren();
  $("#actions").replaceChildren();
  svg.style.display = p.family === "hanabi" ? "none" : "";
  $("#evalwrap").hidden = !entry().standingScale;
  if (p.family === "fog") drawFog(svg, v);
  else if (p.family === "gauntlet") drawGauntlet(svg, v, p.game);
  else drawHanabi($("#table"), v);
  facts(p);
  drawLog(p);
  if (document.activeElement !== $("#notes") && !$("#notes").value) $("#notes").value = p.notes || "";
  renderObservation($("#observation"), p.observation);
  showPicked();
}

function fact(text, cls) {
  const s = document.createElement("span");
  if (cls) s.className = cls;
  s.textContent = text;
  $("#facts").append(s);
}

function facts(p) {
  const v = p.view;
  $("#facts").replaceChildren();
  if (p.family === "fog") {
    fact(`you: ${seatName(v.seat)}`, `seat seat${v.seat}`);
    fact(`your attempts ${v.attempts}`);
    fact(`believed distToWin ${v.believedDistToWin}`);
    if (v.outcome) fact(`result: ${v.outcome.winner === null ? "draw" : v.outcome.winner === v.seat ? "you won" : "you lost"} (${v.outcome.ending})`);
  } else if (p.family === "gauntlet") {
    fact(`you: ${seatName(p.seat)}`, `seat seat${p.seat}`);
    v.standing.forEach((s, seat) => fact(`${seatName(seat)} standing ${s}`, `seat seat${seat}`));
    fact(`ply ${v.plies}/${v.maxPlies}`);
    const red = redShare(v.standing, entry().standingScale);
    $("#evalbar .fill").style.height = `${(100 * red).toFixed(1)}%`;
    $("#evalbar").dataset.red = red.toFixed(3);
    $("#evalbar").dataset.scale = String(entry().standingScale);
  } else {
    fact(`score ${v.score}`);
    fact(`hint tokens ${v.hintTokens}/${v.maxHintTokens}`);
    fact(`fuses ${v.fuses}/${v.maxFuses}`);
    fact(`deck ${v.deckCount}`);
    fact(`turn ${v.turn}/${v.maxTurns}`);
    if (v.finalTurnsLeft !== null) fact(`final turns left ${v.finalTurnsLeft}`);
  }
}

function drawFog(svg, v) {
  const hexMode = v.mode === "dark-hex";
  const c = hexMode ? hexGrid(svg, v.size, 26) : squareGrid(svg, v.size, v.size, 70);
  const stone = (cell, seat) => {
    const [x, y] = c(...parseCell(cell));
    if (hexMode) disc(svg, [x, y], 17, seat, "stone");
    else svg.append(el("text", { x, y: y + 14, "text-anchor": "middle", "font-size": 44, "font-weight": 700, fill: COLOURS[seat], class: "stone" }, seat === 0 ? "X" : "O"));
  };
  v.ownStones.forEach((cell) => stone(cell, v.seat));
  v.provenStones.forEach((cell) => stone(cell, 1 - v.seat));
  for (const [cell, attempt] of Object.entries(v.seenEmpty || {})) {
    const [x, y] = c(...parseCell(cell));
    svg.append(el("text", { x, y: y + 4, "text-anchor": "middle", "font-size": 10, fill: "#8a93a6", class: "seen-empty" }, `∅${attempt}`));
  }
  const last = v.log.length ? v.log[v.log.length - 1] : null;
  if (last) markCells(svg, c, [last.cell], { r: hexMode ? 20 : 30, fill: "none", stroke: last.result === "occupied" ? "#000" : "#e0b21b", "stroke-width": 2 });
  svg.dataset.count = String(v.ownStones.length + v.provenStones.length);
}

// A quoridor wall is clicked on a cell's edge: the top edge of its anchor cell is the
// horizontal wall, the right edge the vertical one (Boards.quoridor draws them there).
function wallSlots(svg, v) {
  const size = 40, pad = 24;
  const centre = (f, r) => [pad + f * size + size / 2, pad + (v.ranks - 1 - r) * size + size / 2];
  for (let f = 0; f < v.files - 1; f++) for (let r = 0; r < v.ranks - 1; r++) {
    const [x, y] = centre(f, r), gx = x + size / 2, gy = y - size / 2;
    const name = cellName(f, r);
    svg.append(el("rect", { x: gx - size * 0.9, y: gy - 4, width: size * 0.8, height: 8, "data-wall": name + "h" }));
    svg.append(el("rect", { x: gx - 4, y: gy + size * 0.1, width: 8, height: size * 0.8, "data-wall": name + "v" }));
  }
}

function drawGauntlet(svg, v, game) {
  const count = Boards[game](svg, v);
  if (entry().notation === "cell-or-wall") wallSlots(svg, v);
  svg.dataset.count = String(count);
}

function drawHanabi(box, v) {
  const div = hanabiDiv;
  drawFireworks(box, v);
  v.hands.forEach((hand, seat) => {
    const mine = seat === v.you;
    const label = div(`seat seat${seat}`, mine ? `seat ${seat} (you): what you know of your cards` : `seat ${seat}${v.activeSeat === seat ? " (to act)" : ""}`);
    label.style.display = "inline-block";
    box.append(label);
    const row = div("hand");
    if (!mine) { row.dataset.target = String(seat); row.title = "click to hint this seat"; }
    for (const c of hand) row.append(mine ? ownCard(c, div) : otherCard(c, div));
    box.append(row);
  });
  const pile = Object.entries(v.discardGrouped).map(([card, n]) => `${card}${n > 1 ? " x" + n : ""}`).join(", ");
  box.append(div("muted", `discard: ${pile || "empty"}`));
  $("#board").dataset.count = String(v.hands.reduce((n, h) => n + h.length, 0));
}

function hintText(h) {
  const known = [h.colour, h.rank].filter((x) => x !== null && x !== undefined).join(" ");
  const not = [...(h.notColours || []), ...(h.notRanks || [])].join(", ");
  return (known ? `hinted ${known}` : "no hint") + (not ? ` · not ${not}` : "");
}

function otherCard(c, div) {
  const [colour] = c.card.split(" ");
  const card = div("card-face hanabi-card");
  card.style.cssText = `border:2px solid ${paint(colour)};border-radius:6px;padding:4px 6px;min-width:84px;font-size:12px;background:${c.chop ? "#fff3c4" : "#fff"}`;
  card.append(div("", `${c.slot}: ${c.card}`), div("muted", hintText(c.hints)));
  if (c.critical) card.append(div("", "critical"));
  if (c.chop) card.append(div("chop", "chop"));
  return card;
}

function ownCard(c, div) {
  const k = c.knowledge;
  const colours = [...new Set(k.candidates.map((x) => x.split(" ")[0]))];
  const ranks = [...new Set(k.candidates.map((x) => x.split(" ")[1]))];
  const card = div("card-face hanabi-card own");
  card.dataset.slot = String(c.slot);
  card.style.cssText = `border:2px dashed #6b7385;border-radius:6px;padding:4px 6px;min-width:84px;font-size:12px;background:${c.chop ? "#fff3c4" : "#fff"}`;
  card.append(div("", `slot ${c.slot}`), div("muted", hintText(k)));
  card.append(div("", `colour: ${colours.join(", ") || "none"}`), div("", `rank: ${ranks.join(", ") || "none"}`));
  if (k.knownPlayable) card.append(div("", "known playable"));
  if (k.knownDead) card.append(div("", "known dead"));
  if (c.chop) card.append(div("chop", "chop"));
  return card;
}

function drawLog(p) {
  const box = $("#log"), v = p.view;
  box.replaceChildren();
  const line = (text) => { const d = document.createElement("div"); d.textContent = text; box.append(d); };
  if (p.family === "fog") {
    for (const e of v.log) {
      const sense = e.sense ? `sense ${e.sense.anchor}: stones ${e.sense.stones.join(" ") || "none"}, empty ${e.sense.empty.join(" ") || "none"}; ` : "";
      line(`attempt ${e.attempt}: ${sense}${e.cell} ${e.result}`);
    }
  } else if (p.family === "hanabi") {
    for (const e of v.log) {
      const card = e.card ? ` (${e.card})` : "";
      const touched = e.touched ? ` slots ${e.touched.join(", ")}` : "";
      line(`turn ${e.turn + 1}, seat ${e.seat}: ${e.move} - ${e.result}${card}${touched}`);
    }
  } else {
    v.history.forEach((m, i) => line(`${i + 1}. ${seatName(i % 2)} ${m}`));
  }
  box.scrollTop = box.scrollHeight;
}

// ---- clicks become moves -----------------------------------------------------------

function showPicked() {
  document.querySelectorAll(".picked").forEach((n) => n.classList.remove("picked"));
  for (const name of picked) {
    const node = document.querySelector(`[data-cell='${name}'], [data-slot='${name}'], [data-target='${name}']`);
    if (node) node.classList.add("picked");
  }
  const p = payload;
  if (!p || !p.yourTurn || !picked.length) return;
  if (entry().notation === "sense+cell") $("#picked").textContent = `sense anchor ${picked[0]}: now click the cell to attempt`;
  else if (entry().notation === "from-to") $("#picked").textContent = `moving ${picked[0]}: now click where to`;
  if (p.family === "hanabi") hanabiActions();
}

function clickCell(cell) {
  const p = payload;
  if (!p || p.finished) return;
  hideError();
  if (entry().notation === "sense+cell") {
    if (!picked.length) { picked = [cell]; showPicked(); return; }
    return play(`${picked[0]}+${cell}`);
  }
  if (entry().notation === "from-to") {
    if (!picked.length) { picked = [cell]; showPicked(); return; }
    if (picked[0] === cell) { picked = []; showPicked(); return; }
    return play(`${picked[0]}-${cell}`);
  }
  if (entry().notation === "file") return play(cell[0]);
  return play(cell);
}

function hanabiActions() {
  const box = $("#actions");
  box.replaceChildren();
  const button = (text, data, move) => {
    const b = document.createElement("button");
    b.textContent = text;
    for (const [k, val] of Object.entries(data)) b.dataset[k] = val;
    b.onclick = () => play(move);
    box.append(b);
  };
  const [what, which] = picked[0].split(":");
  if (what === "slot") {
    $("#picked").textContent = `your card in slot ${which}:`;
    button(`play slot ${which}`, { action: "play" }, `play ${which}`);
    button(`discard slot ${which}`, { action: "discard" }, `discard ${which}`);
  } else {
    $("#picked").textContent = `hint seat ${which}:`;
    const { colours, ranks } = entry().cards;
    for (const colour of colours) button(colour, { hint: `colour ${colour}` }, `hint ${which} colour ${colour}`);
    for (const rank of ranks) button(String(rank), { hint: `rank ${rank}` }, `hint ${which} rank ${rank}`);
  }
}

function wire() {
  $("#board").addEventListener("click", (e) => {
    const wall = e.target.closest("[data-wall]");
    if (wall) { hideError(); return play(wall.dataset.wall); }
    const cell = e.target.closest("[data-cell]");
    if (cell) clickCell(cell.dataset.cell);
  });
  $("#table").addEventListener("click", (e) => {
    if (!payload || payload.finished) return;
    const card = e.target.closest("[data-slot]");
    const hand = e.target.closest("[data-target]");
    if (!card && !hand) return;
    hideError();
    picked = [card ? `slot:${card.dataset.slot}` : `target:${hand.dataset.target}`];
    document.querySelectorAll(".picked").forEach((n) => n.classList.remove("picked"));
    (card || hand).classList.add("picked");
    hanabiActions();
  });
  $("#move-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("#move").value.trim();
    if (text) play(text);
  });
}

async function main() {
  CATALOG = await (await fetch("/api/catalog")).json();
  wire();
  refresh();
  setInterval(refresh, POLL_MS);
}

main();
