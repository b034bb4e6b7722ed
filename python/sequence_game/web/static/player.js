"use strict";
// The player list (/players) and a player's page (/players/NAME): rating, its history as an SVG
// graph with the AI levels for orientation, record against each AI level, games with replay and
// review links. Every name is set as text (textContent), never as HTML.

const $ = id => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

function cell(content) {
  const td = document.createElement("td");
  if (content instanceof Node) td.appendChild(content); else td.textContent = content;
  return td;
}

function tr(...cells) {
  const row = document.createElement("tr");
  row.append(...cells.map(cell));
  return row;
}

function link(text, href) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  return a;
}

function svgEl(name, attrs, text) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

// The rating after each counted game (the first point: where it started), with the AI levels
// whose ratings fall in the range drawn as labelled dashed lines.
function graph(p) {
  const box = $("graph");
  box.replaceChildren();
  const pts = p.history.length ? [p.history[0].rating - p.history[0].change, ...p.history.map(h => h.rating)] : [p.rating];
  const levels = p.ai_levels.filter(l => l.level !== null);
  let lo = Math.min(...pts), hi = Math.max(...pts);
  lo = Math.min(lo - 50, ...levels.map(l => l.rating).filter(r => r >= lo - 150));
  hi = Math.max(hi + 50, ...levels.map(l => l.rating).filter(r => r <= hi + 150));
  const W = 640, H = 240, L = 48, R = 110, T = 12, B = 28;
  const x = i => L + (pts.length > 1 ? i * (W - L - R) / (pts.length - 1) : (W - L - R) / 2);
  const y = r => T + (hi - r) * (H - T - B) / Math.max(1, hi - lo);
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", width: "100%" });
  svg.appendChild(svgEl("title", {}, _("Rating of {name} after each rated game: now {rating}", { name: p.name, rating: p.rating })));
  svg.appendChild(svgEl("rect", { x: 0, y: 0, width: W, height: H, fill: "#fffdf5" }));
  let lastLabel = -Infinity;  // the strongest first: a label too close to the one above it is left out
  for (const l of [...levels].sort((p, q) => q.rating - p.rating)) {
    if (l.rating < lo || l.rating > hi) continue;
    svg.appendChild(svgEl("line", { x1: L, x2: W - R, y1: y(l.rating), y2: y(l.rating), stroke: "#8a8a8a", "stroke-dasharray": "4 4" }));
    if (y(l.rating) - lastLabel < 13) continue;
    lastLabel = y(l.rating);
    svg.appendChild(svgEl("text", { x: W - R + 4, y: y(l.rating) + 4, "font-size": 11, fill: "#444" }, _("level {n} ({rating})", { n: l.level, rating: Math.round(l.rating) })));
  }
  for (const r of [lo, hi]) {
    svg.appendChild(svgEl("text", { x: L - 6, y: y(r) + 4, "font-size": 11, "text-anchor": "end", fill: "#444" }, String(Math.round(r))));
  }
  svg.appendChild(svgEl("line", { x1: L, x2: L, y1: T, y2: H - B, stroke: "#444" }));
  svg.appendChild(svgEl("text", { x: (L + W - R) / 2, y: H - 8, "font-size": 11, "text-anchor": "middle", fill: "#444" },
                        pts.length > 1 ? _("rated games ({n})", { n: pts.length - 1 }) : _("no rated game yet")));
  if (pts.length > 1) {
    svg.appendChild(svgEl("polyline", { points: pts.map((r, i) => `${x(i)},${y(r)}`).join(" "), fill: "none", stroke: "#0072b2", "stroke-width": 2 }));
  }
  pts.forEach((r, i) => svg.appendChild(svgEl("circle", { cx: x(i), cy: y(r), r: 3, fill: "#0072b2" })));
  box.appendChild(svg);
}

// The players of a game; an opponent's (or a partner's) rating as the game began beside the name.
function who(g) {
  const span = document.createElement("span");
  g.seats.forEach((s, i) => {
    if (i) span.append(", ");
    if (s.account) span.appendChild(link(s.name, `/players/${encodeURIComponent(s.name)}`));
    else span.append(s.ai ? seatName({ kind: "ai", ai: s.ai, name: null }, i) : _("{name} (guest)", { name: defaultName(s.name) }));
    if (s.seat !== g.seat && s.rating !== null && s.rating !== undefined) span.append(` (${s.rating})`);
  });
  return span;
}

function showPlayer(p) {
  document.title = _("Sequence: {name}", { name: p.name });
  $("name").textContent = p.name;
  $("summary").textContent = _("Rating {rating}", { rating: club.rating(p.rating, p.provisional) }) +
    (p.provisional ? " " + _("(not settled yet: a few more rated games settle it)") : "") +
    " - " + ngettext("{n} rated game", "{n} rated games", p.rated_games) + " - " + _("member since {date}", { date: formatDate(p.created) });
  graph(p);
  $("vsai").replaceChildren(...(p.vs_ai.length ? p.vs_ai.map(r =>
    tr(aiName(r.ai), r.level === null ? "-" : String(r.level), r.rating === null ? "-" : String(Math.round(r.rating)),
       String(r.wins), String(r.losses), String(r.draws))) : [tr(_("no game against the computer yet"), "", "", "", "", "")]));
  $("games").replaceChildren(...(p.games.length ? p.games.map(g => {
    const links = document.createElement("span");
    links.append(link(_("replay"), g.replay), " \u00b7 ", link(_("review"), g.review));
    const outcome = { win: _("won"), loss: _("lost"), draw: _("draw") }[g.outcome];
    const result = g.how === "resigned" ? _("{outcome} (resignation)", { outcome }) : g.how === "time" ? _("{outcome} (on time)", { outcome }) : outcome;
    // a counted game's change; a rated one that did not count says why (an aborted game, ...)
    const change = g.counted ? `${g.change > 0 ? "+" : ""}${g.change}` : g.rated ? _("not counted: {why}", { why: whyText(g.why) }) : _("casual");
    const moves = g.moves === null || g.moves === undefined ? "-" : String(g.moves);
    return tr(formatDate(g.finished, true), who(g), timeControlText(g.time_control), moves, result, change, links);
  }) : [tr(_("no finished game yet"), "", "", "", "", "", "")]));
  $("player").hidden = false;
}

function showList(rows) {
  $("players").replaceChildren(...(rows.length ? rows.map(p =>
    tr(link(p.name, `/players/${encodeURIComponent(p.name)}`), club.rating(p.rating, p.provisional), String(p.rated_games)))
    : [tr(_("no player yet: sign up from the lobby"), "", "")]));
  $("list").hidden = false;
}

async function load() {
  const parts = location.pathname.split("/").filter(Boolean);
  const name = parts.length > 1 ? decodeURIComponent(parts[1]) : null;
  const url = name === null ? "/api/players" : `/api/players/${encodeURIComponent(name)}`;
  let res, data;
  try {
    res = await fetch(url);
    data = await res.json();
  } catch (e) {
    $("error").textContent = _("The server cannot be reached: reload to try again.");
    return;
  }
  if (!res.ok) { $("error").textContent = errorText(data, res.status); return; }
  if (name === null) showList(data); else showPlayer(data);
}

load();
