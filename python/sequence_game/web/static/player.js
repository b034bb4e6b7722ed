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
    const outcome = { win: _("won"), loss: _("lost"), draw: _("draw"), aborted: _("aborted") }[g.outcome];
    const result = g.how === "resigned" ? _("{outcome} (resignation)", { outcome }) : g.how === "time" ? _("{outcome} (on time)", { outcome }) : outcome;
    // a counted game's change; a rated one that did not count says why (an aborted game, ...)
    // an aborted game counts for nobody, casual or rated: the row says why
    const change = g.counted ? `${g.change > 0 ? "+" : ""}${g.change}`
      : g.rated || g.outcome === "aborted" ? _("not counted: {why}", { why: whyText(g.why) }) : _("casual");
    const moves = g.moves === null || g.moves === undefined ? "-" : String(g.moves);
    return tr(formatDate(g.finished, true), who(g), timeControlText(g.time_control), moves, result, change, links);
  }) : [tr(_("no finished game yet"), "", "", "", "", "", "")]));
  showPeople(p);
  $("player").hidden = false;
}

// ---------------------------------------------------------------- people (docs/club.md)

// The clocks a challenge offers: the lobby's choices, by the same words.
const CHALLENGE_CLOCKS = [
  ["none", _("no clock"), {}],
  ["f3+2", _("{m} min + {s} s a move", { m: 3, s: 2 }), { clock: { kind: "fischer", seconds: 180, increment: 2, at_zero: "lose" } }],
  ["f10+5", _("{m} min + {s} s a move", { m: 10, s: 5 }), { clock: { kind: "fischer", seconds: 600, increment: 5, at_zero: "lose" } }],
  ["b5+30", _("time bank {m} min, +{s} s a turn", { m: 5, s: 30 }), { clock: { kind: "bank", seconds: 300, increment: 30, at_zero: "ai" } }],
];
for (const [v, label] of CHALLENGE_CLOCKS) $("ch-clock").add(new Option(label, v));

let shown = null;  // the player this page shows

function presenceText(p) {
  const box = $("presence");
  box.replaceChildren();
  if (p.presence.playing.length) {
    box.append(_("Playing now:") + " ");
    p.presence.playing.forEach((t, i) => { if (i) box.append(", "); box.append(people.watchLink(t)); });
  } else box.textContent = p.presence.online ? _("Online now") : _("Not online");
}

function showPeople(p) {
  shown = p;
  presenceText(p);
  $("country").hidden = !p.profile.country;
  $("country").textContent = p.profile.country ? _("Country: {country}", { country: p.profile.country }) : "";
  $("bio").hidden = !p.profile.bio;
  $("bio").textContent = p.profile.bio;  // text, never HTML: its line breaks kept by the style sheet
  const me = club.me && club.me.name;
  const own = !!me && me.toLowerCase() === p.name.toLowerCase();
  $("relation").hidden = !me || own;
  $("challenge").hidden = !me || own || !!(p.relation && p.relation.blocked);
  $("profile").hidden = !own;
  if (p.relation) {
    $("follow").textContent = p.relation.following ? _("Unfollow") : _("Follow");
    $("follow").setAttribute("aria-pressed", String(p.relation.following));
    $("block").textContent = p.relation.blocked ? _("Unblock") : _("Block");
    $("block").setAttribute("aria-pressed", String(p.relation.blocked));
  }
  if (own) {
    $("pf-country").value = p.profile.country;
    $("pf-bio").value = p.profile.bio;
  }
}

async function relate(kind, on, done) {
  $("relation-error").textContent = "";
  try {
    await people.send(on ? "PUT" : "DELETE", `/api/people/${kind}/${encodeURIComponent(shown.name)}`);
    $("relation-error").textContent = done || "";
    await reload();
    people.load();
  } catch (e) { $("relation-error").textContent = e.message; }
}

$("follow").addEventListener("click", () => relate("follows", !shown.relation.following));
$("block").addEventListener("click", () => {
  const on = !shown.relation.blocked;
  relate("blocks", on, on ? _("Blocked: {name} cannot challenge you, and you no longer see their chat.", { name: shown.name }) : "");
});

$("challenge").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const players = +$("ch-players").value;
  const tc = { ...CHALLENGE_CLOCKS.find(t => t[0] === $("ch-clock").value)[2] };
  const body = { to: shown.name, players, rated: $("ch-rated").checked, ...tc };
  $("ch-status").textContent = "";
  $("ch-send").disabled = true;
  try {
    const c = await people.send("POST", "/api/challenges", body, {
      NotAllowedError: _("You cannot challenge this player."),
      NotNowError: _("You already have an open challenge to this player: withdraw it first."),
    });
    people.remember(c.id);
    $("ch-status").textContent = _("Challenge sent to {name}: this page goes to the table when they accept.", { name: shown.name });
    people.load();
  } catch (e) {
    $("ch-status").textContent = e.message;
  } finally { $("ch-send").disabled = false; }
});

$("profile").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  $("pf-status").textContent = "";
  try {
    await people.send("PUT", "/api/profile", { bio: $("pf-bio").value, country: $("pf-country").value });
    $("pf-status").textContent = _("Saved.");
    await reload();
  } catch (e) { $("pf-status").textContent = e.message; }
});

async function reload() {
  const res = await fetch(`/api/players/${encodeURIComponent(shown.name)}`);
  if (res.ok) showPeople(await res.json());
}

function leaderRows(rows, empty) {
  return rows.length ? rows.map(r => tr(String(r.rank), link(r.name, `/players/${encodeURIComponent(r.name)}`),
                                        club.rating(r.rating, r.provisional), String(r.rated_games)))
    : [tr(empty, "", "", "")];
}

async function showLeaderboard() {
  let board;
  try {
    const res = await fetch("/api/leaderboard");
    if (!res.ok) return;
    board = await res.json();
  } catch (e) { return; }
  $("leaders").replaceChildren(...leaderRows(board.settled, _("no settled rating yet")));
  $("leaders-provisional").replaceChildren(...leaderRows(board.provisional, _("no provisional rating")));
  $("leaderboard").hidden = false;
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
  if (name === null) { showList(data); showLeaderboard(); } else showPlayer(data);
}

// the buttons of a player page depend on who is signed in: shown once the club knows
document.addEventListener("club:me", () => { if (shown) showPeople(shown); });
load();
