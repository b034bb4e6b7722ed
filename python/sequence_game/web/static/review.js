// The review of a finished game: GET /api/tables/{id}/replay for its positions and
// /api/tables/{id}/review for the AI's view of every move (asked for with POST when missing;
// it runs in the server's AI workers, so the page polls until it is ready).
"use strict";

const tableId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const $ = (id) => document.getElementById(id);
const board = new Board($("board"));
let data = null, review = null, index = 0, byIndex = {};

const pct = (x) => x === null || x === undefined ? "?" : `${Math.round(100 * x)}%`;

function show(i) {
  index = Math.max(0, Math.min(data.steps.length - 1, i));
  const step = data.steps[index];
  $("slider").value = index;
  board.render(step.state, step.move ? { player: step.player, move: step.move } : null);
  board.clearMarks("hinted");
  const r = byIndex[index];
  $("status").textContent = index === 0 ? "The deal" :
    `Move ${index} of ${data.steps.length - 1}: ${data.names[step.player]} ${humanMove(step.move)}`;
  const verdict = $("verdict");
  verdict.replaceChildren();
  verdict.className = "";
  if (r) {
    verdict.textContent = `Chance of winning ${pct(r.before)} before, ${pct(r.after)} after.`;
    if (r.mistake) {
      verdict.className = "mistake";
      verdict.textContent += ` This move cost ${Math.round(100 * r.loss)} points; the AI preferred ${humanMove(r.best)}.`;
      const best = parseMove(r.best);
      if (best.cell) board.mark([best.cell], "hinted");  // the preferred move, on the board
    }
  }
  [...$("log").children].forEach((li, k) => li.classList.toggle("current", k + 1 === index));
  const current = $("log").children[index - 1];
  if (current) current.scrollIntoView({ block: "nearest" });
  drawGraph();
}

// One line per team through its own moves' "before" chances (each search's own point of view),
// the result at the end; mistakes as red dots; the current move as a vertical line.
function drawGraph() {
  const box = $("graph");
  if (!review) { box.textContent = ""; return; }
  const W = 600, H = 150, pad = 22, n = data.steps.length - 1;
  const x = (k) => pad + (W - 2 * pad) * (n ? k / n : 0), y = (v) => H - pad - (H - 2 * pad) * v;
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
  for (let team = 0; team < data.record.teams; team++) {
    const pts = review.moves.filter(m => m.team === team).map(m => `${x(m.index - 1)},${y(m.before)}`);
    const last = review.moves.filter(m => m.team === team).pop();
    if (last && last.after !== null && last.index === n) pts.push(`${x(n)},${y(last.after)}`);
    add("polyline", { points: pts.join(" "), fill: "none", stroke: TEAM_COLOURS[team], "stroke-width": 2.5 });
  }
  for (const m of review.moves.filter(m => m.mistake)) {
    const c = add("circle", { cx: x(m.index - 1), cy: y(m.before), r: 5, fill: "#b00020", stroke: "#fff", "stroke-width": 1.5, class: "mistake-dot" });
    c.addEventListener("click", () => show(m.index));
  }
  add("line", { x1: x(index), y1: pad, x2: x(index), y2: H - pad, stroke: "#111", "stroke-width": 1.5 });
  svg.addEventListener("click", (ev) => {
    const r = svg.getBoundingClientRect();
    show(Math.round(((ev.clientX - r.left) / r.width * W - pad) / (W - 2 * pad) * n));
  });
  box.replaceChildren(svg);
  $("legend").replaceChildren(...Array.from({ length: data.record.teams }, (_, t) => {
    const s = document.createElement("span");
    s.append(teamBadge(t), ` team ${TEAM_NAMES[t]}  `);
    return s;
  }));
}

function renderReview() {
  byIndex = {};
  for (const m of review.moves) byIndex[m.index] = m;
  $("about").textContent = `Each position searched from the mover's seat (${review.iterations} iterations; ` +
    "the search samples the hidden cards, it never reads them).";
  const list = $("mistakes");
  list.replaceChildren();
  const mistakes = review.moves.filter(m => m.mistake);
  list.classList.toggle("empty", !mistakes.length);
  if (!mistakes.length) { const li = document.createElement("li"); li.textContent = "none: no move cost 10 points"; list.appendChild(li); }
  for (const m of mistakes) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "move";
    b.textContent = `${m.index}. ${data.names[m.player]}: ${humanMove(m.move)} (-${Math.round(100 * m.loss)}); better ${humanMove(m.best)}`;
    b.addEventListener("click", () => show(m.index));
    li.appendChild(b);
    list.appendChild(li);
  }
  [...$("log").children].forEach((li, k) => { if (byIndex[k + 1] && byIndex[k + 1].mistake) li.classList.add("mistake"); });
  show(index);
}

async function loadReview() {
  const url = `/api/tables/${encodeURIComponent(tableId)}/review`;
  let res = await fetch(url);
  let body = await res.json();
  if (res.status === 404 && body.status === "none") {
    res = await fetch(url, { method: "POST" });
    body = await res.json();
  }
  if (!res.ok) { $("about").textContent = body.detail || "the review is not available"; return; }
  if (body.status === "ready") { review = body.review; renderReview(); return; }
  $("about").textContent = `The AI is reviewing the game: ${body.done || 0} of ${body.total || "?"} positions...`;
  setTimeout(loadReview, 700);
}

async function main() {
  await board.load();
  const res = await fetch(`/api/tables/${encodeURIComponent(tableId)}/replay`);
  data = await res.json();
  if (!res.ok) { $("status").textContent = data.detail; return; }
  $("title").textContent = `review of table ${tableId}`;
  $("slider").max = data.steps.length - 1;
  const log = $("log");
  for (const step of data.steps.slice(1)) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "move";
    b.textContent = `${data.names[step.player]}: ${humanMove(step.move)}`;
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
