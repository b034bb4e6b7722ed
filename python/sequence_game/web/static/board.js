// The board: the library's SVG (GET /board.svg, drawn by sequence_game.svg) with chips, sequences,
// highlights and the last move drawn on top. Shared by the table and the replay pages.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const TEAM_COLOURS = ["#0072b2", "#009e73", "#d55e00"]; // Okabe-Ito: blue, bluish green, vermillion
const TEAM_EDGES = ["#003d63", "#00553e", "#7a3600"];
const TEAM_LETTERS = ["B", "G", "R"];
const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const RED_SUITS = new Set(["H", "D"]);

function cellName(r, c) { return "abcdefghij"[c] + (r + 1); }
function parseCell(name) { return [parseInt(name.slice(1), 10) - 1, "abcdefghij".indexOf(name[0])]; }
function rankText(card) { return card[0] === "T" ? "10" : card[0]; }
function cardLabel(card) { return rankText(card) + SUITS[card[1]]; }
// A card as a screen reader says it: "queen of hearts".
function cardSpoken(card) {
  const rank = { A: _("ace"), K: _("king"), Q: _("queen"), J: _("jack"), T: "10" }[card[0]] || card[0];
  const suit = { S: _("spades"), H: _("hearts"), D: _("diamonds"), C: _("clubs") }[card[1]];
  return _("{rank} of {suit}", { rank, suit });
}

// A move's text (docs/notation.md) as an object: {text, kind, card, cell, declares: [[first, last], ...]}.
function parseMove(text) {
  if (text === "pass") return { text, kind: "pass" };
  let m = /^trade (\w\w)$/.exec(text);
  if (m) return { text, kind: "trade", card: m[1] };
  m = /^(\w\w)x([a-j]\d+)$/.exec(text);
  if (m) return { text, kind: "remove", card: m[1], cell: m[2] };
  m = /^(\w\w)@([a-j]\d+)((?: =[a-j]\d+-[a-j]\d+)*)$/.exec(text);
  if (m) {
    const declares = m[3].trim() ? m[3].trim().split(" ").map(d => d.slice(1).split("-")) : [];
    return { text, kind: "place", card: m[1], cell: m[2], declares };
  }
  return { text, kind: "unknown" };
}

// A move as a person reads it, with cards written the way the board shows them (docs/notation.md has
// the engine notation the API uses): "10\u2663 on c8", "J\u2665 removes d3", "trade 5\u2666", "pass".
function humanMove(text) {
  const m = typeof text === "string" ? parseMove(text) : text;
  if (m.kind === "pass") return _("pass");
  if (m.kind === "trade") return _("trade {card}", { card: cardLabel(m.card) });
  if (m.kind === "remove") return _("{card} removes {cell}", { card: cardLabel(m.card), cell: m.cell });
  if (m.kind === "place") {
    const lines = m.declares.map(([a, z]) => `${a}\u2013${z}`);
    const placed = _("{card} on {cell}", { card: cardLabel(m.card), cell: m.cell });
    return lines.length ? placed + ", " + ngettext("sequence {lines}", "sequences {lines}", lines.length, { lines: lines.join(_(" and ")) }) : placed;
  }
  return m.text;
}

// A finished game's result in words, from its fields: who won, after how many turns (R5: a dead-card
// trade is not one), how it ended and the winners' names (names[p]: seat p's name as the page shows
// it; seat p is on team p mod teams, R2).
function gameResultText(r, names, teams) {
  const count = r.turns;
  if (r.aborted) {  // before every first move: nobody won or lost, no rating changed
    const f = { name: names[r.aborted.seat] };
    return sentences(r.aborted.why === "no-first-move" ? _("Game aborted: {name} did not make a first move in time.", f)
      : _("Game aborted by {name}.", f), _("Nobody wins or loses; no rating changes."));
  }
  if (r.winner === null || r.winner === undefined) return ngettext("Draw after {n} turn.", "Draw after {n} turns.", count);
  const winners = names.filter((n, p) => p % teams === r.winner);
  const f = { team: teamLabel(r.winner), name: r.resigned === null || r.resigned === undefined ? "" : names[r.resigned],
              winners: winners.join(", ") };
  const how = r.resigned === null || r.resigned === undefined ? ngettext("{team} wins after {n} turn.", "{team} wins after {n} turns.", count, f)
    : r.on_time ? ngettext("{team} wins after {n} turn: {name} ran out of time.", "{team} wins after {n} turns: {name} ran out of time.", count, f)
    : ngettext("{team} wins after {n} turn: {name} resigned.", "{team} wins after {n} turns: {name} resigned.", count, f);
  return sentences(sentence(how), ngettext("Winner: {winners}.", "Winners: {winners}.", winners.length, f));
}

function sentence(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

// The cells of a declared line "a1".."e5" (R7: five in a row, any direction).
function lineCells(first, last) {
  const [r1, c1] = parseCell(first), [r2, c2] = parseCell(last);
  const dr = Math.sign(r2 - r1), dc = Math.sign(c2 - c1), n = Math.max(Math.abs(r2 - r1), Math.abs(c2 - c1));
  const cells = [];
  for (let k = 0; k <= n; k++) cells.push([r1 + k * dr, c1 + k * dc]);
  return cells;
}

// Every public position of a game from its public move list [[player, move], ...] and each seat's
// team: the board, the sequences and the discards are public (R9), so a page can show any earlier
// position without asking the server for more than the move list. positions[k] is after k moves.
function publicPositions(history, teamOf) {
  const board = Array.from({ length: 10 }, (x, r) => Array.from({ length: 10 }, (y, c) =>
    (r === 0 || r === 9) && (c === 0 || c === 9) ? "*" : "."));
  const sequences = [], positions = [];
  const snap = () => positions.push({ board: board.map(row => row.join("")), sequences: sequences.slice() });
  snap();
  for (const [p, text] of history) {
    const m = parseMove(text);
    if (m.kind === "place") {
      const [r, c] = parseCell(m.cell);
      board[r][c] = "BGR"[teamOf(p)];
      for (const [a, z] of m.declares) sequences.push({ team: teamOf(p), cells: lineCells(a, z) });
    } else if (m.kind === "remove") {
      const [r, c] = parseCell(m.cell);
      board[r][c] = ".";
    }
    snap();
  }
  return positions;
}

// A card face like the board's (same paper, rank and suit symbol in red or black).
function cardFace(card, sub) {
  const el = document.createElement("button");
  el.type = "button";
  el.className = "hand-card" + (RED_SUITS.has(card[1]) ? " red" : "");
  el.dataset.card = card;
  const main = document.createElement("span");
  main.textContent = cardLabel(card);
  el.appendChild(main);
  if (sub) {
    const s = document.createElement("span");
    s.className = "sub";
    s.textContent = sub;
    el.appendChild(s);
  }
  return el;
}

function miniCard(card) {
  const el = document.createElement("span");
  el.className = "mini" + (RED_SUITS.has(card[1]) ? " red" : "");
  el.textContent = cardLabel(card);
  el.title = card;
  return el;
}

function teamBadge(team) {
  const b = document.createElement("span");
  b.className = "badge t" + team;
  b.textContent = TEAM_LETTERS[team];
  b.title = teamLabel(team);
  return b;
}

class Board {
  constructor(container) {
    this.container = container;
    this.cells = {}; // name -> {g, rect, text, x, y, size, label: {x, y, fs, anchor}}
    this.onCellClick = null;
  }

  async load() {
    const res = await fetch("/board.svg");
    this.container.innerHTML = await res.text();
    this.svg = this.container.querySelector("svg");
    this.svg.removeAttribute("width");
    this.svg.removeAttribute("height");
    this.svg.setAttribute("role", "group");
    this.svg.setAttribute("aria-label", _("Sequence board"));
    this.coordinatesAsLabels();
    for (const g of this.svg.querySelectorAll("g.cell")) {
      const rect = g.querySelector("rect");
      const text = g.querySelector("text");
      const x = +rect.getAttribute("x"), y = +rect.getAttribute("y"), size = +rect.getAttribute("width");
      const info = { g, rect, text, x, y, size };
      if (text && !g.querySelector("polygon")) {
        info.label = { x: text.getAttribute("x"), y: text.getAttribute("y"), fs: text.getAttribute("font-size"),
                       anchor: text.getAttribute("text-anchor") };
      }
      this.cells[g.dataset.cell] = info;
      g.addEventListener("click", () => this.onCellClick && this.onCellClick(g.dataset.cell));
    }
    this.layer = document.createElementNS(SVG_NS, "g");
    this.layer.setAttribute("class", "overlay");
    this.layer.setAttribute("pointer-events", "none");
    this.svg.appendChild(this.layer);
    this.choiceLayer = document.createElementNS(SVG_NS, "g");
    this.choiceLayer.setAttribute("class", "choices-layer");
    this.svg.appendChild(this.choiceLayer);
    return this;
  }

  // The coordinates (a-j, 1-10) drawn as HTML beside the SVG: the letter comes from CSS
  // (content: attr(data-label)), so it is no text node. Accessibility checkers cannot decide the
  // contrast of a one-character text in an SVG and leave it "to review"; the colours themselves
  // (#f0ead6 on the felt #2f5d3a, 7.2:1) are checked by the tests. Screen readers get every cell's
  // coordinate from the cell's own label.
  coordinatesAsLabels() {
    const box = this.svg.viewBox.baseVal;
    // the corners' label too (a word: "FREE" in the page's language), drawn the same way
    const corners = [...this.svg.querySelectorAll("g.cell")].filter(g => g.querySelector("polygon")).map(g => g.querySelector("text"));
    for (const t of [...this.svg.querySelectorAll("text.coord"), ...corners.filter(Boolean)]) {
      const label = document.createElement("span");
      label.className = "coord-label";
      label.dataset.label = t.textContent;
      label.setAttribute("aria-hidden", "true");
      const x = +t.getAttribute("x"), y = +t.getAttribute("y"), fs = +t.getAttribute("font-size");
      label.style.left = `${(x / box.width) * 100}%`;
      label.style.top = `${((y - fs * 0.85) / box.height) * 100}%`;
      label.style.fontSize = `${(fs / box.width) * 100}cqw`;
      label.style.color = t.getAttribute("fill");
      if (t.getAttribute("font-weight")) label.style.fontWeight = t.getAttribute("font-weight");
      this.container.appendChild(label);
      t.remove();
    }
  }

  centre(name) {
    const c = this.cells[name];
    return [c.x + c.size / 2, c.y + c.size / 2];
  }

  el(tag, attrs, parent) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    (parent || this.layer).appendChild(e);
    return e;
  }

  // A chip: team colour, a shape per team (circle, rounded square, diamond) and the team letter.
  chip(name, team, locked) {
    const [cx, cy] = this.centre(name);
    const c = this.cells[name];
    const r = c.size * 0.33;
    const attrs = { fill: TEAM_COLOURS[team], stroke: TEAM_EDGES[team], "stroke-width": c.size * 0.04,
                    class: "chip team-" + team, "data-cell": name };
    const y = cy + c.size * 0.06;
    let shape;
    if (team === 0) shape = this.el("circle", { cx, cy: y, r, ...attrs });
    else if (team === 1) shape = this.el("rect", { x: cx - r * 0.9, y: y - r * 0.9, width: r * 1.8, height: r * 1.8, rx: r * 0.35, ...attrs });
    else shape = this.el("polygon", { points: `${cx},${y - r * 1.1} ${cx + r * 1.1},${y} ${cx},${y + r * 1.1} ${cx - r * 1.1},${y}`, ...attrs });
    if (locked) this.el("circle", { cx, cy: y, r: r * 0.78, fill: "none", stroke: "#fff", "stroke-width": c.size * 0.05, class: "lock", "data-cell": name });
    const t = this.el("text", { x: cx, y: y + r * 0.36, "text-anchor": "middle", "font-size": r, "font-weight": "bold", fill: "#fff" });
    t.textContent = TEAM_LETTERS[team];
    return shape;
  }

  // Draw a position: board strings, sequences, the last move; highlights are set separately.
  // animate: the position follows the one drawn before by one move, so the new chip, the removed
  // chip and a new sequence are animated (CSS; none under prefers-reduced-motion).
  render(state, lastMove, animate) {
    const prev = this.drawn, before = animate ? prev : null;
    this.drawn = { board: state.board.slice(), sequences: state.sequences.length };
    this.layer.replaceChildren();
    const locked = new Set();
    for (const s of state.sequences) for (const [r, c] of s.cells) locked.add(cellName(r, c));
    for (const s of state.sequences) {
      const [a, b] = [s.cells[0], s.cells[4]];
      const [x1, y1] = this.centre(cellName(a[0], a[1])), [x2, y2] = this.centre(cellName(b[0], b[1]));
      const size = this.cells.a1.size;
      const isNew = before && state.sequences.indexOf(s) >= before.sequences;
      this.el("line", { x1, y1: y1 + size * 0.06, x2, y2: y2 + size * 0.06, stroke: TEAM_EDGES[s.team],
                        "stroke-width": size * 0.12, "stroke-linecap": "round", opacity: 0.75,
                        class: "sequence team-" + s.team + (isNew ? " sequence-new" : ""), pathLength: 1 });
    }
    for (let r = 0; r < 10; r++) {
      for (let c = 0; c < 10; c++) {
        const name = cellName(r, c), ch = state.board[r][c], info = this.cells[name];
        const team = "BGR".indexOf(ch);
        if (info.label) {
          // a covered card stays readable in the cell's top-left corner (as sequence_game.svg draws it)
          if (team >= 0) {
            info.text.setAttribute("x", info.x + info.size * 0.05);
            info.text.setAttribute("y", info.y + info.size * 0.2);
            info.text.setAttribute("font-size", info.size * 0.19);
            info.text.setAttribute("text-anchor", "start");
            info.text.setAttribute("font-weight", "normal");
          } else {
            info.text.setAttribute("x", info.label.x);
            info.text.setAttribute("y", info.label.y);
            info.text.setAttribute("font-size", info.label.fs);
            info.text.setAttribute("text-anchor", info.label.anchor);
            info.text.setAttribute("font-weight", "bold");
          }
        }
        info.g.dataset.state = ch;
        const card = info.label ? info.text.textContent : _("free corner");
        info.g.setAttribute("role", "img");  // a labelled picture of the cell (aria-label needs a role)
        const chip = team < 0 ? "" : locked.has(name) ? _("{team} chip, in a sequence", { team: teamName(team) }) : _("{team} chip", { team: teamName(team) });
        info.g.setAttribute("aria-label", `${name} ${card}` + (chip ? `, ${chip}` : ""));
        if (team >= 0) {
          const shape = this.chip(name, team, locked.has(name));
          if (before && before.board[r][c] !== ch) shape.classList.add("chip-new");
        }
      }
    }
    if (lastMove) {
      const m = parseMove(lastMove.move);
      if (m.kind === "remove") this.removedChip(m.cell, prev);
      if (m.cell) {
        const c = this.cells[m.cell];
        this.el("rect", { x: c.x - 1, y: c.y - 1, width: c.size + 2, height: c.size + 2, rx: c.size * 0.1, fill: "none",
                          stroke: "#111", "stroke-width": c.size * 0.1, class: "last-move-shadow" });
        this.el("rect", { x: c.x, y: c.y, width: c.size, height: c.size, rx: c.size * 0.1, fill: "none", stroke: "#f0e442",
                          "stroke-width": c.size * 0.06, "stroke-dasharray": m.kind === "remove" ? `${c.size * 0.12} ${c.size * 0.08}` : "none",
                          class: "last-move", "data-cell": m.cell });
      }
    }
  }

  // Where a one-eyed jack took a chip: the chip's ghost, crossed out, so the removal stays readable
  // until the next move (the team is known when the position before was drawn on this page).
  removedChip(name, before) {
    const [cx, cy] = this.centre(name), c = this.cells[name], r = c.size * 0.33, y = cy + c.size * 0.06;
    const [row, col] = parseCell(name);
    const team = before ? "BGR".indexOf(before.board[row][col]) : -1;
    const g = this.el("g", { class: "removed-chip", "data-cell": name });
    this.el("circle", { cx, cy: y, r, fill: team >= 0 ? TEAM_COLOURS[team] : "#999", opacity: 0.35,
                        stroke: "#111", "stroke-width": c.size * 0.03, "stroke-dasharray": `${c.size * 0.08} ${c.size * 0.05}` }, g);
    const d = r * 0.62;
    for (const [dx, dy] of [[d, d], [d, -d]]) {
      this.el("line", { x1: cx - dx, y1: y - dy, x2: cx + dx, y2: y + dy, stroke: "#b00020", "stroke-width": c.size * 0.07,
                        "stroke-linecap": "round" }, g);
    }
    return g;
  }

  clearMarks(...classes) {
    for (const info of Object.values(this.cells)) info.g.classList.remove(...classes);
  }

  mark(names, ...classes) {
    for (const n of names) this.cells[n] && this.cells[n].g.classList.add(...classes);
  }

  // R7: several ways to declare the sequences of one placement, drawn as numbered lines to pick.
  showChoices(choices, onPick) {
    this.choiceLayer.replaceChildren();
    const dashes = ["none", "10 6", "3 5", "14 4 3 4"];
    const size = this.cells.a1.size, n = choices.length;
    choices.forEach((move, i) => {
      const group = this.el("g", { class: "choice", "data-choice": i + 1, cursor: "pointer" }, this.choiceLayer);
      // Choices that share cells would draw on top of each other: each is shifted across its own
      // direction, and its number sits at its own place along the line, so every number shows.
      const shift = (i - (n - 1) / 2) * size * 0.2;
      move.declares.forEach(([a, b], j) => {
        const [x1, y1] = this.centre(a), [x2, y2] = this.centre(b);
        const len = Math.hypot(x2 - x1, y2 - y1) || 1;
        const ox = (-(y2 - y1) / len) * shift, oy = ((x2 - x1) / len) * shift;
        const line = { x1: x1 + ox, y1: y1 + oy, x2: x2 + ox, y2: y2 + oy };
        // thin and translucent, so the chips under the line stay readable; a wide invisible stroke
        // keeps the line easy to click
        this.el("line", { ...line, stroke: "transparent", "stroke-width": 18, "pointer-events": "stroke" }, group);
        this.el("line", { ...line, stroke: "#fff", "stroke-width": 6, "stroke-linecap": "round", opacity: 0.55 }, group);
        this.el("line", { ...line, stroke: "#111", "stroke-width": 3, "stroke-dasharray": dashes[i % 4], "stroke-linecap": "round",
                          opacity: 0.8 }, group);
        // numbers sit between two cells (a line spans five cells: four gaps), never on a chip
        const at = (2 * ((i + j) % 4) + 1) / 8;
        const mx = line.x1 + (line.x2 - line.x1) * at, my = line.y1 + (line.y2 - line.y1) * at;
        this.el("circle", { cx: mx, cy: my, r: 11, fill: "#111", stroke: "#fff", "stroke-width": 2 }, group);
        const t = this.el("text", { x: mx, y: my + 5, "text-anchor": "middle", "font-size": 14, "font-weight": "bold", fill: "#fff" }, group);
        t.textContent = String(i + 1);
      });
      group.addEventListener("click", (ev) => { ev.stopPropagation(); onPick(move); });
    });
  }

  clearChoices() { this.choiceLayer.replaceChildren(); }
}

// The evaluation bar (docs/review.md): every team's chance of winning as its share of one bar, in
// the public view; the server sends it only where it helps nobody (a finished game, an AI-only
// table, a replay). `box` is hidden when `chances` is null.
function renderChances(box, chances) {
  const el = box.querySelector(".chances");
  el.replaceChildren();
  box.hidden = !chances;
  if (!chances) return;
  const pct = (p) => formatPercent(p);
  const bar = document.createElement("div");
  bar.className = "chance-bar";
  bar.setAttribute("role", "img");
  bar.setAttribute("aria-label", _("chance of winning: {list}", { list: chances.map((p, t) => `${teamName(t)} ${pct(p)}`).join(", ") }));
  const legend = document.createElement("div");
  legend.className = "chance-legend";
  chances.forEach((p, t) => {
    const seg = document.createElement("div");
    seg.className = "seg t" + t;
    seg.style.width = `${(p * 100).toFixed(1)}%`;
    bar.appendChild(seg);
    const item = document.createElement("span");
    item.dataset.team = t;
    item.append(teamBadge(t), ` ${teamName(t)} ${pct(p)}`);
    legend.appendChild(item);
  });
  el.append(bar, legend);
}
