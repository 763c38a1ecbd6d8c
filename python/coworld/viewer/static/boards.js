"use strict";
// Board renderers, one per family. Each draws a spectator view (the JSON the Rust
// core produced) into the SVG; none of them knows a rule: they only draw. Facts about
// a game (seat names, scales, notation, card faces) come from the catalogue
// (/api/catalog), never from here.
const SVGNS = "http://www.w3.org/2000/svg";
const COLOURS = ["#d64541", "#2e6fd8"];
// How a colour name is painted; a name without a tint here is painted as itself.
const TINTS = { red: "#d64541", yellow: "#e0b21b", green: "#2d9d5c", blue: "#2e6fd8", white: "#9aa3b5" };
const paint = (colour) => TINTS[colour] || colour;

function el(name, attrs, text) {
  const node = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}
const fileName = (f) => String.fromCharCode(97 + f);
const cellName = (f, r) => fileName(f) + (r + 1);
function parseCell(name) { return [name.charCodeAt(0) - 97, parseInt(name.slice(1), 10) - 1]; }

// A square grid: returns the cell centre function. Rank 1 at the bottom.
function squareGrid(svg, files, ranks, size, opts = {}) {
  const pad = 24, w = files * size + 2 * pad, h = ranks * size + 2 * pad;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const centre = (f, r) => [pad + f * size + size / 2, pad + (ranks - 1 - r) * size + size / 2];
  for (let f = 0; f < files; f++) for (let r = 0; r < ranks; r++) {
    const [x, y] = centre(f, r);
    const dark = opts.checker && (f + r) % 2 === 0;
    svg.append(el("rect", { x: x - size / 2, y: y - size / 2, width: size, height: size,
      fill: opts.fill || (dark ? "#d9dde8" : "#f3f5fa"), stroke: "#b8bfcf", "data-cell": cellName(f, r) }));
  }
  for (let f = 0; f < files; f++) svg.append(el("text", { x: centre(f, 0)[0], y: h - 6, "text-anchor": "middle", "font-size": 11, fill: "#6b7385" }, fileName(f)));
  for (let r = 0; r < ranks; r++) svg.append(el("text", { x: 8, y: centre(0, r)[1] + 4, "font-size": 11, fill: "#6b7385" }, String(r + 1)));
  return centre;
}

function disc(svg, [x, y], radius, seat, cls, extra = {}) {
  svg.append(el("circle", { cx: x, cy: y, r: radius, fill: COLOURS[seat], class: cls, ...extra }));
}

// A hex rhombus: rank r+1 sits half a hex to the right, so (r, c) touches
// (r+1, c) and (r+1, c-1) as the hex adjacency rule says. Red owns files a and the
// last file (left and right edges); blue ranks 1 and n (bottom and top).
function hexGrid(svg, n, size) {
  const w = Math.sqrt(3) * size, pad = 30;
  const width = w * (n + (n - 1) / 2) + 2 * pad, height = size * (1.5 * (n - 1) + 2) + 2 * pad;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const centre = (f, r) => [pad + w / 2 + w * (f + r / 2), height - pad - size - 1.5 * size * r];
  const corners = ([x, y]) => [...Array(6).keys()].map((i) => {
    const a = Math.PI / 180 * (60 * i - 30);
    return [x + size * Math.cos(a), y + size * Math.sin(a)];
  });
  for (let r = 0; r < n; r++) for (let f = 0; f < n; f++) {
    const pts = corners(centre(f, r)).map((p) => p.join(",")).join(" ");
    svg.append(el("polygon", { points: pts, fill: "#f3f5fa", stroke: "#b8bfcf", "data-cell": cellName(f, r) }));
  }
  const edge = (cells, seat) => {
    for (const [f, r] of cells) svg.append(el("circle", { cx: centre(f, r)[0], cy: centre(f, r)[1], r: size * 0.18, fill: COLOURS[seat], opacity: 0.25 }));
  };
  edge([...Array(n).keys()].flatMap((r) => [[0, r], [n - 1, r]]), 0);
  edge([...Array(n).keys()].flatMap((f) => [[f, 0], [f, n - 1]]), 1);
  for (let f = 0; f < n; f++) svg.append(el("text", { x: centre(f, 0)[0], y: height - 8, "text-anchor": "middle", "font-size": 11, fill: "#6b7385" }, fileName(f)));
  for (let r = 0; r < n; r++) svg.append(el("text", { x: centre(0, r)[0] - w * 0.75, y: centre(0, r)[1] + 4, "font-size": 11, fill: "#6b7385" }, String(r + 1)));
  // coloured edge bars
  const [ax, ay] = centre(0, 0), [bx, by] = centre(n - 1, 0), [cx, cy] = centre(0, n - 1), [dx, dy] = centre(n - 1, n - 1);
  svg.append(el("line", { x1: ax - 6, y1: ay + size + 4, x2: bx + 6, y2: by + size + 4, stroke: COLOURS[1], "stroke-width": 4 }));
  svg.append(el("line", { x1: cx - 6, y1: cy - size - 4, x2: dx + 6, y2: dy - size - 4, stroke: COLOURS[1], "stroke-width": 4 }));
  svg.append(el("line", { x1: ax - w * 0.6, y1: ay, x2: cx - w * 0.6, y2: cy, stroke: COLOURS[0], "stroke-width": 4 }));
  svg.append(el("line", { x1: bx + w * 0.6, y1: by, x2: dx + w * 0.6, y2: dy, stroke: COLOURS[0], "stroke-width": 4 }));
  return centre;
}

function markCells(svg, centre, cells, attrs) {
  for (const name of cells || []) {
    const [f, r] = parseCell(name);
    const [x, y] = centre(f, r);
    svg.append(el("circle", { cx: x, cy: y, ...attrs }));
  }
}

// The eval bar: red's share of it for a `standing` pair, on the game's catalogue
// `standingScale` (a gap of one scale fills 88% of the bar).
function redShare(standing, scale) {
  return 0.5 + 0.5 * Math.tanh((standing[0] - standing[1]) / scale);
}

const Boards = {
  "connect-four"(svg, v) {
    const c = squareGrid(svg, v.files, v.ranks, 44, { fill: "#2b3a67" });
    for (let f = 0; f < v.files; f++) for (let r = 0; r < v.ranks; r++) svg.append(el("circle", { cx: c(f, r)[0], cy: c(f, r)[1], r: 17, fill: "#fff" }));
    for (const [cell, seat] of Object.entries(v.stones)) disc(svg, c(...parseCell(cell)), 17, seat, "stone");
    return Object.keys(v.stones).length;
  },
  breakthrough(svg, v) {
    const c = squareGrid(svg, v.files, v.ranks, 52, { checker: true });
    for (const [cell, seat] of Object.entries(v.pieces)) {
      const [x, y] = c(...parseCell(cell));
      svg.append(el("path", { d: `M${x - 14},${y + 14} L${x + 14},${y + 14} L${x + 9},${y - 2} A9,9 0 1,0 ${x - 9},${y - 2} Z`, fill: COLOURS[seat], class: "stone" }));
    }
    return Object.keys(v.pieces).length;
  },
  hex(svg, v) {
    const c = hexGrid(svg, v.files, 22);
    for (const [cell, seat] of Object.entries(v.stones)) disc(svg, c(...parseCell(cell)), 15, seat, "stone");
    return Object.keys(v.stones).length;
  },
  quoridor(svg, v) {
    const size = 40, c = squareGrid(svg, v.files, v.ranks, size);
    v.pawns.forEach((cell, seat) => disc(svg, c(...parseCell(cell)), 14, seat, "stone"));
    for (const { wall, seat } of v.walls) {
      const [f, r] = parseCell(wall.slice(0, 2));
      const [x, y] = c(f, r), gx = x + size / 2, gy = y - size / 2;  // top-right lattice corner
      const attrs = { stroke: COLOURS[seat], "stroke-width": 6, "stroke-linecap": "round", class: "wall" };
      if (wall[2] === "h") svg.append(el("line", { x1: gx - size + 3, y1: gy, x2: gx + size - 3, y2: gy, ...attrs }));
      else svg.append(el("line", { x1: gx, y1: gy - size + 3, x2: gx, y2: gy + size - 3, ...attrs }));
    }
    return v.pawns.length;
  },
  fog(svg, v, perspective) {
    const hexMode = v.mode === "dark-hex";
    const c = hexMode ? hexGrid(svg, v.size, 26) : squareGrid(svg, v.size, v.size, 70);
    let stones = Object.entries(v.stones);
    if (perspective !== null && perspective !== undefined) {
      const k = v.knowledge[perspective];
      stones = stones.filter(([, seat]) => seat === perspective);
      for (const cell of k.proven) stones.push([cell, 1 - perspective]);
      for (const [cell, ply] of Object.entries(k.seenEmpty || {})) {
        const [x, y] = c(...parseCell(cell));
        svg.append(el("text", { x, y: y + 4, "text-anchor": "middle", "font-size": 10, fill: "#8a93a6", class: "seen-empty" }, `∅${ply}`));
      }
    }
    const last = v.events.length ? v.events[v.events.length - 1] : null;
    for (const [cell, seat] of stones) {
      const [x, y] = c(...parseCell(cell));
      if (hexMode) disc(svg, [x, y], 17, seat, "stone");
      else svg.append(el("text", { x, y: y + 14, "text-anchor": "middle", "font-size": 44, "font-weight": 700, fill: COLOURS[seat], class: "stone" }, seat === 0 ? "X" : "O"));
    }
    if (last) markCells(svg, c, [last.cell], { r: hexMode ? 20 : 30, fill: "none", stroke: last.result === "occupied" ? "#000" : "#e0b21b", "stroke-width": 2, "stroke-dasharray": last.result === "occupied" ? "4 3" : "" });
    if (last && (last.winPath || last.line)) markCells(svg, c, last.winPath || last.line, { r: 5, fill: "#fff" });
    return stones.length;
  },
};

// A div with a class and text: Hanabi's table is built of them.
const hanabiDiv = (cls, text) => { const d = document.createElement("div"); if (cls) d.className = cls; if (text !== undefined) d.textContent = text; return d; };

// The five fireworks as coloured cards (the spectator's table and a seat's page).
function drawFireworks(box, v) {
  const fw = hanabiDiv("hand");
  for (const [colour, height] of Object.entries(v.fireworks)) {
    const card = hanabiDiv("card-face", `${colour} ${height}`);
    card.style.cssText = `background:${paint(colour)};color:#fff;padding:4px 8px;border-radius:4px`;
    fw.append(card);
  }
  box.append(hanabiDiv("muted", "fireworks"), fw);
}

// Hanabi is a table, not a board: HTML into #table.
function renderHanabi(box, v, aliases) {
  box.replaceChildren();
  const div = hanabiDiv;
  drawFireworks(box, v);
  v.hands.forEach((hand, seat) => {
    const label = div("", `${aliases[seat] || "seat " + seat}${v.activeSeat === seat ? "  (to act)" : ""}`);
    label.className = "seat seat" + seat;
    label.style.display = "inline-block";
    box.append(label);
    const row = div("hand");
    for (const c of hand) {
      const [colour, rank] = c.card.split(" ");
      const k = c.knowledge || {};
      const card = div("card-face");
      card.style.cssText = `border:2px solid ${paint(colour)};border-radius:6px;padding:4px 6px;min-width:74px;font-size:12px;background:${c.chop ? "#fff3c4" : "#fff"}`;
      card.append(div("", `${c.slot}: ${c.card}`));
      const hint = [k.colour, k.rank].filter((x) => x !== null && x !== undefined).join(" ");
      card.append(div("muted", hint ? `hint: ${hint}` : "no hint"));
      if (k.knownPlayable) card.append(div("", "playable"));
      if (k.knownDead) card.append(div("", "dead"));
      if (c.critical) card.append(div("", "critical"));
      if (c.chop) card.append(div("chop", "chop"));
      card.className = "card-face hanabi-card";
      row.append(card);
    }
    box.append(row);
  });
  const pile = Object.entries(v.discardGrouped).map(([card, n]) => `${card}${n > 1 ? " x" + n : ""}`).join(", ");
  box.append(div("muted", `discard: ${pile || "empty"}`));
  return v.hands.reduce((n, h) => n + h.length, 0);
}
