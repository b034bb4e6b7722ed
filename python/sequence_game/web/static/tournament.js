"use strict";
// A tournament's page (/tournaments/ID, docs/club.md "Tournaments"): what it is, join, withdraw,
// pause and berserk for a signed-in member, the creator's early start, your game's link, the live
// standings and the games.
// It asks the server again every two seconds. Every name is set as text, never as HTML.

const $ = id => document.getElementById(id);
const TID = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
let current = null;

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

function th(text) {
  const h = document.createElement("th");
  h.textContent = text;
  return h;
}

function link(text, href) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  return a;
}

function points(x) { return formatNumber(x, { maximumFractionDigits: 2 }); }

// An entrant (a player, or a team of two) as links to its players' pages.
function entrantNode(t, id) {
  const row = t.standings.find(r => r.entrant === id);
  const span = document.createElement("span");
  (row ? row.names : [id]).forEach((name, i) => {
    if (i) span.append(" & ");
    span.appendChild(club.playerLink(name));
  });
  return span;
}

function clockText(c) {
  const minutes = c.seconds / 60;
  return _("{minutes} min + {increment} s", { minutes: formatNumber(minutes, { maximumFractionDigits: 1 }), increment: formatNumber(c.increment) });
}

function about(t) {
  const kind = t.kind === "swiss" ? ngettext("Swiss of {n} round", "Swiss of {n} rounds", t.rounds)
    : _("Arena of {minutes} minutes", { minutes: formatNumber(t.minutes, { maximumFractionDigits: 1 }) });
  const who = t.team_size === 2 ? _("teams of two") : _("two players a game");
  return [kind, who, clockText(t.clock), t.rated ? _("rated") : _("casual"),
          _("announced by {name}", { name: t.creator })].join(" - ");
}

function status(t) {
  const when = formatDate(new Date(t.starts * 1000).toISOString(), true);
  if (t.status === "upcoming") return _("Starts {when}.", { when });
  if (t.status === "finished") return _("Finished.");
  if (t.kind === "swiss") return _("Round {round} of {rounds} is being played.", { round: t.round, rounds: t.rounds });
  const left = Math.max(0, Math.round(t.ends - Date.now() / 1000));
  return left > 0 ? _("Running: {minutes}:{seconds} left.", { minutes: Math.floor(left / 60), seconds: String(left % 60).padStart(2, "0") })
    : _("Time is up: the last games are being finished.");
}

function mine(t) {
  const me = club.me && club.me.name ? club.me.name.toLowerCase() : null;
  return me ? t.standings.find(r => r.names.some(n => n.toLowerCase() === me)) : null;
}

function showActions(t) {
  const me = club.me && club.me.name;
  const row = mine(t);
  const open = t.status === "upcoming" || (t.kind === "arena" && t.status === "running");
  // a team waiting for its partner (pending[i][0] joined, pending[i][1] is named): the one who
  // joined is in it already, and may withdraw it
  const waiting = !!me && t.pending.some(names => names[0].toLowerCase() === me.toLowerCase());
  $("t-join").hidden = !me || !open || (row && row.state === "in") || waiting;
  $("t-partner-label").hidden = $("t-join").hidden || t.team_size !== 2;
  $("t-withdraw").hidden = !(waiting || (row && row.state === "in")) || t.status === "finished";
  const arena = t.kind === "arena" && t.status === "running" && row && row.state === "in";
  $("t-pause").hidden = !arena || row.paused;
  $("t-resume").hidden = !arena || !row.paused;
  $("t-berserk").hidden = !arena || !t.berserk || !row.table;
  // its creator may start it before its time, once two players (or teams) are in
  const creator = me && t.status === "upcoming" && t.creator.toLowerCase() === me.toLowerCase();
  const ready = t.standings.filter(r => r.state === "in").length >= 2;
  $("t-start").hidden = !creator;
  $("t-start").disabled = !ready;
  $("t-start-hint").hidden = !creator || ready;
}

function showStandings(t) {
  const swiss = t.kind === "swiss";
  const heads = swiss ? [_("rank"), _("player"), _("rating"), _("points"), _("Buchholz"), _("Sonneborn-Berger"), _("games"), _("playing")]
    : [_("rank"), _("player"), _("rating"), _("points"), _("performance"), _("games"), _("streak"), _("playing")];
  $("t-head").replaceChildren(...heads.map(th));
  $("t-standings").replaceChildren(...(t.standings.length ? t.standings.map(r => {
    const name = entrantNode(t, r.entrant);
    if (r.state === "withdrawn") name.append(" ", _("(withdrawn)"));
    if (r.paused) name.append(" ", _("(paused)"));
    const playing = r.opponent ? document.createElement("span") : "-";
    if (r.opponent) {
      playing.append(_("against"), " ", entrantNode(t, r.opponent));
      if (r.table) playing.append(" ", link(_("watch"), `/table/${encodeURIComponent(r.table)}`));
    }
    const cells = swiss ? [String(r.rank), name, String(r.rating), points(r.points), points(r.buchholz), points(r.sonneborn_berger), String(r.games), playing]
      : [String(r.rank), name, String(r.rating), points(r.points), r.performance === null ? "-" : String(r.performance), String(r.games), r.fire ? _("on fire: double points") : "-", playing];
    return tr(...cells);
  }) : [tr(_("nobody has joined yet"), ...heads.slice(1).map(() => ""))]));
  $("t-pending").hidden = !t.pending.length;
  $("t-pending").textContent = t.pending.length ? _("Waiting for a partner to join: {teams}", { teams: t.pending.map(p => p.join(" & ")).join(", ") }) : "";
}

function resultText(g) {
  if (g.second === null) return _("bye");
  if (g.aborted) return _("aborted: no points");
  if (g.result === null) return _("playing");
  const text = g.result === 1 ? "1 - 0" : g.result === 0 ? "0 - 1" : "\u00bd - \u00bd";
  return g.forfeit ? _("{result} (no-show)", { result: text }) : text;
}

function showGames(t) {
  const games = [...t.games].reverse();
  $("t-games").replaceChildren(...(games.length ? games.map(g => tr(
    t.kind === "swiss" ? String(g.round) : "-",
    entrantNode(t, g.first), g.second === null ? "-" : entrantNode(t, g.second), resultText(g),
    g.table ? link(g.result === null ? _("watch") : _("replay"), g.result === null ? `/table/${encodeURIComponent(g.table)}` : `/replay/${encodeURIComponent(g.table)}`) : "",
  )) : [tr(_("no game yet"), "", "", "", "")]));
}

async function showMyGame(t) {
  const row = mine(t);
  const box = $("t-game");
  if (!row || !row.table) { box.hidden = true; return; }
  let data = null;
  try {
    const res = await fetch(`/api/tournaments/${encodeURIComponent(TID)}/seat`);
    if (res.ok) data = await res.json();
  } catch (e) { data = null; }
  if (!data || !data.seat) { box.hidden = true; return; }
  box.replaceChildren(_("Your game has started:"), " ", link(_("play it"), data.seat.url));
  box.hidden = false;
}

function show(t) {
  current = t;
  document.title = _("Sequence: {name}", { name: t.name });
  $("t-name").textContent = t.name;
  $("t-about").textContent = about(t);
  $("t-status").textContent = status(t);
  showActions(t);
  showStandings(t);
  showGames(t);
  showMyGame(t);
  $("tournament").hidden = false;
}

async function load() {
  let res, data;
  try {
    res = await fetch(`/api/tournaments/${encodeURIComponent(TID)}`);
    data = await res.json();
  } catch (e) {
    $("error").textContent = unreachable();
    return;
  }
  if (!res.ok) { $("error").textContent = errorText(data, res.status); return; }
  $("error").textContent = "";
  show(data);
}

async function act(path, body) {
  $("t-error").textContent = "";
  let res, data;
  try {
    res = await fetch(`/api/tournaments/${encodeURIComponent(TID)}/${path}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) });
    data = res.status === 204 ? null : await res.json();
  } catch (e) {
    $("t-error").textContent = unreachable();
    return;
  }
  if (!res.ok) { $("t-error").textContent = errorText(data, res.status); return; }
  await load();
}

$("t-join").addEventListener("click", () => {
  const partner = $("t-partner").value.trim();
  act("join", current && current.team_size === 2 ? { partner: partner || null } : {});
});
$("t-withdraw").addEventListener("click", () => act("withdraw"));
$("t-start").addEventListener("click", () => act("start"));
$("t-pause").addEventListener("click", () => act("pause", { paused: true }));
$("t-resume").addEventListener("click", () => act("pause", { paused: false }));
$("t-berserk").addEventListener("click", () => act("berserk"));
document.addEventListener("club:me", () => { if (current) showActions(current); });

load();
setInterval(load, 2000);
