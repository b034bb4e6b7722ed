// The review of a finished game: GET /api/tables/{id}/replay for its positions and
// POST /api/tables/{id}/review for its review (POST starts it or returns the one running or done,
// so a first visit asks no question the server answers with 404; the page polls until it is
// ready). Every team's chance of winning comes from one calibrated estimator: the graph in the
// public view (what a spectator sees; two teams sum to 100%), each decision graded in the mover's
// view against the best move (docs/review.md).
"use strict";

const tableId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const $ = (id) => document.getElementById(id);
const board = new Board($("board"));
let data = null, review = null, index = 0, byIndex = {};

const pct = (x) => x === null || x === undefined ? "?" : formatPercent(x);
// a seat's name as every page shows it: a guest's marked (docs/club.md, "Names")
function name(p) { return recordName(data.names[p], p, (data.accounts || [])[p], data.record.agents[p] === "human"); }
// The grades (docs/review.md), in the page's words.
function tierName(tier) { return { inaccuracy: _("inaccuracy"), mistake: _("mistake"), blunder: _("blunder") }[tier]; }
const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const TIER_COLOURS = { inaccuracy: "#5c4800", mistake: "#8a3300", blunder: "#9e001c" };  // 4.5:1 or more on the page

// The threats that decide a move (docs/review.md), one template per kind as the review's JSON
// names them (the same table as sequence_game.review.threats.NOTE_TEMPLATES).
const NOTE_TEMPLATES = {
  "win": _("{team} wins at {cells}"), "win-2": _("{team} wins at {cells} with two sequences at once"),
  "missed-win": _("{team} could have won at {cells}"), "threat": _("{team} threatens {cells} for the win"),
  "threat-2": _("{team} threatens {cells} for two sequences"),
  "double-threat": _("{team} threatens {cells}: one move cannot block them all"),
  "block": _("{team} blocks {other} at {cells}"), "missed-block": _("{team} left {other} the win at {cells}"),
};
function noteText(n) {
  const key = n.sequences >= 2 && NOTE_TEMPLATES[`${n.kind}-2`] ? `${n.kind}-2` : n.kind;
  const parts = { team: teamLabel(n.team), other: n.other === undefined || n.other === null ? "" : teamLabel(n.other), cells: n.cells.join(", ") };
  return fillFields(NOTE_TEMPLATES[key], parts);
}

function resignation() {
  return review ? review.events.find(e => e.kind === "resignation") : undefined;
}

function chancesText(chances) {
  return chances.map((c, t) => `${teamName(t)} ${pct(c)}`).join(", ");
}

function show(i) {
  index = Math.max(0, Math.min(data.steps.length - 1, i));
  const step = data.steps[index];
  $("slider").value = index;
  board.render(step.state, step.move ? { player: step.player, move: step.move } : null);
  board.clearMarks("hinted");
  const r = byIndex[index];
  $("status").textContent = index === 0 ? _("The deal") :
    _("Move {k} of {n}: {name}: {move}", { k: index, n: data.steps.length - 1, name: name(step.player), move: humanMove(step.move) });
  const verdict = $("verdict");
  verdict.replaceChildren();
  verdict.className = "";
  if (review) {
    const parts = [];
    if (r && r.kind === "move") {
      parts.push(_("Chance of winning for {name}'s team: {best} with the best move, {played} with the move played.",
                   { name: name(r.player), best: pct(r.before), played: pct(r.after) }));
      if (r.tier) {
        verdict.className = "mistake";
        parts.push(sentence(ngettext("{tier} ({mark}): it lost {n} point; the best move was {move}.",
          "{tier} ({mark}): it lost {n} points; the best move was {move}.", Math.round(100 * r.loss),
          { tier: tierName(r.tier), mark: MARKS[r.tier], move: humanMove(r.best) })));
        const best = parseMove(r.best);
        if (best.cell) board.mark([best.cell], "hinted");  // the best move, on the board
      }
    } else if (r) {
      parts.push(_("Chance of winning: {list}.", { list: chancesText(r.chances) }),
        { forced: _("The only legal move: not graded."), trade: _("A dead-card trade: not graded."),
          timeout: _("Played by the turn timer (the player did not move in time): not graded."),
          referee: _("A referee's call: not graded.") }[r.kind] || "");
    } else {
      parts.push(_("Chance of winning: {list}.", { list: chancesText(review.curve[0]) }));
    }
    for (const n of (r && r.notes) || []) {
      const text = noteText(n);
      parts.push(_("{sentence}.", { sentence: sentence(text) }));
      board.mark(n.cells, "hinted");  // the deciding cells, on the board
    }
    const res = resignation();
    if (res && index === data.steps.length - 1) {
      parts.push(_("Then {name} resigned: {team} wins.", { name: name(res.player), team: teamLabel(res.winner) }),
        _("The resignation is the end of the game, not a move: no move is blamed for it."));
    }
    verdict.textContent = parts.length ? sentences(...parts) : "";
  }
  [...$("log").children].forEach((li, k) => li.classList.toggle("current", k + 1 === index));
  const current = $("log").children[index - 1];
  if (current) current.scrollIntoView({ block: "nearest" });
  drawGraph();
}

// One line per team through the public chances after every position (the result at the end; a
// resignation as a last step marked R); graded moves as dots coloured by tier; the current
// position as a vertical line.
function drawGraph() {
  const box = $("graph");
  if (!review) { box.textContent = ""; return; }
  const points = review.curve.length;
  const W = 600, H = 150, pad = 22, n = Math.max(1, points - 1);
  const x = (k) => pad + (W - 2 * pad) * (k / n), y = (v) => H - pad - (H - 2 * pad) * v;
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "graph");
  const add = (tag, attrs) => { const e = document.createElementNS(SVG_NS, tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); svg.appendChild(e); return e; };
  add("rect", { x: pad, y: pad, width: W - 2 * pad, height: H - 2 * pad, fill: "#fffdf5", stroke: "#cfc4a0" });
  add("line", { x1: pad, y1: y(0.5), x2: W - pad, y2: y(0.5), stroke: "#999", "stroke-dasharray": "4 4" });
  for (const [v, label] of [[0, "0%"], [0.5, "50%"], [1, "100%"]]) {
    const t = add("text", { x: 2, y: y(v) + 4, "font-size": 10, fill: "#444" });
    t.textContent = label;
  }
  for (let team = 0; team < review.teams; team++) {
    const pts = review.curve.map((c, k) => `${x(k)},${y(c[team])}`);
    add("polyline", { points: pts.join(" "), fill: "none", stroke: TEAM_COLOURS[team], "stroke-width": 2.5, "data-team": team });
  }
  const res = resignation();
  if (res) {
    const t = add("text", { x: x(n) - 4, y: pad - 6, "font-size": 11, fill: "#111", "text-anchor": "end", class: "resign-mark" });
    t.textContent = _("{name} resigned", { name: name(res.player) });
    add("line", { x1: x(n), y1: pad, x2: x(n), y2: H - pad, stroke: "#111", "stroke-dasharray": "2 3" });
  }
  for (const m of review.moves.filter(m => m.tier)) {
    const c = add("circle", { cx: x(m.index), cy: y(m.chances[m.team]), r: 5, fill: TIER_COLOURS[m.tier], stroke: "#fff", "stroke-width": 1.5, class: `mistake-dot ${m.tier}` });
    c.addEventListener("click", (ev) => { ev.stopPropagation(); show(m.index); });
  }
  add("line", { x1: x(index), y1: pad, x2: x(index), y2: H - pad, stroke: "#111", "stroke-width": 1.5 });
  svg.addEventListener("click", (ev) => {
    const r = svg.getBoundingClientRect();
    show(Math.round(((ev.clientX - r.left) / r.width * W - pad) / (W - 2 * pad) * n));
  });
  box.setAttribute("aria-label", _("chance of winning along the game: {list} at this position",
    { list: chancesText(review.curve[Math.min(index, points - 1)]) }));
  box.replaceChildren(svg);
  $("legend").replaceChildren(...Array.from({ length: review.teams }, (x, t) => {
    const s = document.createElement("span");
    s.append(teamBadge(t), ` ${teamLabel(t)}  `);
    return s;
  }));
}

function renderSummary() {
  const table = $("accuracy");
  table.replaceChildren();
  const head = document.createElement("tr");
  for (const [h, title] of [[_("Player"), ""], [_("Accuracy"), _("mean accuracy of the graded moves")],
    ["?!", _("inaccuracies")], ["?", _("mistakes")], ["??", _("blunders")]]) {
    const th = document.createElement("th");
    th.scope = "col";
    if (title && h.includes("?")) {
      const abbr = document.createElement("abbr");
      abbr.title = title;
      abbr.textContent = h;
      th.appendChild(abbr);
    } else th.textContent = h;
    head.appendChild(th);
  }
  table.appendChild(head);
  for (const p of review.players) {
    const tr = document.createElement("tr");
    const who = document.createElement("th");
    who.scope = "row";
    who.append(teamBadge(p.team), ` ${name(p.player)}`);
    tr.appendChild(who);
    for (const v of [p.accuracy === null ? "-" : formatNumber(p.accuracy / 100, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 }),
                     formatNumber(p.inaccuracy), formatNumber(p.mistake), formatNumber(p.blunder)]) {
      const td = document.createElement("td");
      td.textContent = String(v);
      tr.appendChild(td);
    }
    table.appendChild(tr);
  }
}

function renderReview() {
  byIndex = {};
  for (const m of review.moves) byIndex[m.index] = m;
  const t = review.tiers;
  $("about").textContent = _("The graph shows the game as a spectator sees it; each move is judged from the mover's seat, with their own hand and never another's. A move is an inaccuracy from {a} points lost against the best move, a mistake from {b}, a blunder from {c}. Forced moves and dead-card trades are not graded.",
    { a: Math.round(100 * t.inaccuracy), b: Math.round(100 * t.mistake), c: Math.round(100 * t.blunder) });
  renderSummary();
  const list = $("mistakes");
  list.replaceChildren();
  const flagged = review.moves.filter(m => m.tier);
  list.classList.toggle("empty", !flagged.length);
  if (!flagged.length) { const li = document.createElement("li"); li.textContent = ngettext("none: no move lost {n} point", "none: no move lost {n} points", Math.round(100 * t.inaccuracy)); list.appendChild(li); }
  for (const m of flagged) {
    const li = document.createElement("li");
    li.value = m.index;  // the list counts by move number, so the text does not repeat it
    const b = document.createElement("button");
    b.type = "button";
    b.className = "move";
    b.style.color = TIER_COLOURS[m.tier];
    b.textContent = `${name(m.player)}: ${humanMove(m.move)} ${MARKS[m.tier]} ${tierName(m.tier)}, -${Math.round(100 * m.loss)}; ` +
      _("best: {move}", { move: humanMove(m.best) });
    b.addEventListener("click", () => show(m.index));
    li.appendChild(b);
    list.appendChild(li);
  }
  [...$("log").children].forEach((li, k) => {
    const m = byIndex[k + 1];
    const b = li.querySelector("button");
    if (m && m.tier && b) { b.append(` ${MARKS[m.tier]}`); b.style.color = TIER_COLOURS[m.tier]; }
  });
  const res = resignation();
  if (res) {
    const li = document.createElement("li");
    li.className = "event";
    li.textContent = _("{name} resigned: {team} wins", { name: name(res.player), team: teamLabel(res.winner) });
    $("log").appendChild(li);
  }
  show(index);
}

async function loadReview() {
  // POST answers with the review when it is ready, its progress while it runs, and starts it when
  // there is none: no 404 on a first visit.
  const res = await fetch(`/api/tables/${encodeURIComponent(tableId)}/review`, { method: "POST" });
  let body = {};
  try { body = await res.json(); } catch (e) { body = {}; }
  if (res.status === 429) {
    $("about").textContent = _("The server is busy: trying again...");
    setTimeout(loadReview, 3000);
    return;
  }
  if (!res.ok) { $("about").textContent = body.error ? errorText(body, res.status) : _("The review is not available."); return; }
  if (body.status === "ready") { review = body.review; renderReview(); return; }
  $("about").textContent = _("Reviewing the game: {done} of {total} moves...", { done: body.done || 0, total: body.total || "?" });
  setTimeout(loadReview, 700);
}

async function main() {
  await board.load();
  const res = await fetch(`/api/tables/${encodeURIComponent(tableId)}/replay`);
  data = await res.json();
  if (!res.ok) { $("status").textContent = errorText(data, res.status); return; }
  $("title").textContent = _("review of table {table}", { table: tableId });
  $("slider").max = data.steps.length - 1;
  const log = $("log");
  for (const step of data.steps.slice(1)) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "move";
    b.textContent = `${name(step.player)}: ${humanMove(step.move)}`;
    b.addEventListener("click", () => show(step.index));
    li.appendChild(b);
    log.appendChild(li);
  }
  show(0);
  loadReview();
}

$("first").addEventListener("click", () => show(0));
$("prev").addEventListener("click", () => show(index - 1));
$("next").addEventListener("click", () => show(index + 1));
$("last").addEventListener("click", () => show(data.steps.length - 1));
$("slider").addEventListener("input", (ev) => show(+ev.target.value));
document.addEventListener("keydown", (ev) => {
  if (!data || ev.target.tagName === "INPUT") return;
  const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1 };
  if (moves[ev.key]) { show(index + moves[ev.key]); ev.preventDefault(); }
  else if (ev.key === "Home") show(0);
  else if (ev.key === "End") show(data.steps.length - 1);
});
main();
