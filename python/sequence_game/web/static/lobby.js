// The lobby: the new-table form and the list of tables.
"use strict";

const VALID = [2, 3, 4, 6, 8, 9, 10, 12];
const TEAM_CHOICES = { 2: [2], 3: [3], 4: [2], 6: [2, 3], 8: [2], 9: [3], 10: [2], 12: [2, 3] };
let PRESETS = [["medium", "", _("medium")]];  // [name, summary, label] from GET /api/presets (the levels), weakest first
const $ = (id) => document.getElementById(id);

for (const n of VALID) $("players").add(new Option(String(n), String(n)));

function teamsNow() {
  const players = +$("players").value;
  return +$("teams").value || TEAM_CHOICES[players][0];
}

function updateTeams() {
  const players = +$("players").value, sel = $("teams"), old = +sel.value;
  sel.replaceChildren();
  for (const t of TEAM_CHOICES[players]) sel.add(new Option(players <= 3 ? _("{n} (each alone)", { n: t }) : String(t), String(t)));
  if (TEAM_CHOICES[players].includes(old)) sel.value = String(old);
  sel.disabled = TEAM_CHOICES[players].length === 1;
  updateSeats();
}

function updateSeats() {
  const players = +$("players").value, teams = teamsNow(), box = $("seatrows");
  const old = [...box.querySelectorAll(".seat-row")].map(r => ({ kind: r.querySelector(".kind").value, ai: r.querySelector(".ai").value, name: r.querySelector(".name").value }));
  box.replaceChildren();
  for (let p = 0; p < players; p++) {
    const row = document.createElement("div");
    row.className = "seat-row";
    const label = document.createElement("span");
    label.appendChild(teamBadge(p % teams));
    label.append(" " + _("Seat {n}", { n: p + 1 }));
    const kind = document.createElement("select");
    kind.className = "kind";
    kind.setAttribute("aria-label", _("seat {n}: who plays", { n: p + 1 }));
    kind.add(new Option(_("Human"), "human"));
    kind.add(new Option(_("Open seat (anyone joins from the lobby)"), "open"));
    kind.add(new Option(_("Computer"), "ai"));
    const ai = document.createElement("select");
    ai.className = "ai";
    ai.setAttribute("aria-label", _("seat {n}: the computer's level", { n: p + 1 }));
    for (const [v, t, label] of PRESETS) { const o = new Option(label, v); o.title = t; ai.add(o); }
    ai.value = "medium";
    const name = document.createElement("input");
    name.className = "name";
    name.maxLength = 32;
    name.placeholder = _("name (optional)");
    name.setAttribute("aria-label", _("seat {n}: name", { n: p + 1 }));
    const prev = old[p];
    kind.value = prev ? prev.kind : p === 0 ? "human" : "ai";
    if (prev) { ai.value = prev.ai; name.value = prev.name; }
    const sync = () => { ai.disabled = kind.value !== "ai"; name.disabled = kind.value === "open"; };
    kind.addEventListener("change", sync);
    sync();
    row.append(label, kind, ai, name);
    box.appendChild(row);
  }
}

$("players").addEventListener("change", updateTeams);
$("teams").addEventListener("change", updateSeats);

$("newtable").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  $("formerror").textContent = "";
  const seats = [...document.querySelectorAll(".seat-row")].map(r => {
    const kind = r.querySelector(".kind").value, name = r.querySelector(".name").value.trim();
    if (kind === "open") return { kind: "human", open: true };
    return { kind, ai: kind === "ai" ? r.querySelector(".ai").value : null, name: name || null };
  });
  const body = { players: +$("players").value, teams: teamsNow(), seats, hot_seat: $("hotseat").checked,
                 ai_seconds: +$("aiseconds").value };
  if ($("turnseconds").value) body.turn_seconds = +$("turnseconds").value;
  if ($("hints").value !== "auto") body.hints = $("hints").value === "on";
  if ($("seed").value !== "") body.seed = +$("seed").value;
  if ($("rated").checked) body.rated = true;
  let res, data;
  try {
    res = await fetch("/api/tables", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    data = await res.json();
  } catch (e) {
    $("formerror").textContent = unreachable();
    return;
  }
  if (!res.ok) { $("formerror").textContent = errorText(data, res.status); return; }
  if (data.seats.length === 1) { location.href = data.seats[0].url; return; }
  const ul = $("links");
  ul.replaceChildren();
  for (const s of data.seats) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = s.url;
    a.textContent = _("Seat {n} ({name})", { n: s.seat + 1, name: seats[s.seat].name || _("player {n}", { n: s.seat + 1 }) });
    const copy = document.createElement("button");
    copy.type = "button";
    copy.textContent = _("Copy link");
    const copied = document.createElement("span");
    copied.className = "dim";
    copied.setAttribute("role", "status");
    copy.addEventListener("click", () => copyLink(s.url, copied));
    li.append(a, " ", copy, " ", copied, document.createElement("br"), s.url);
    ul.appendChild(li);
  }
  finishCreated(data);
});

// Copy a seat's link, and say whether it worked (the clipboard needs a secure context: on plain
// http from another machine it is refused: the note then says to copy the link shown by hand).
async function copyLink(url, note) {
  let copied = false;
  try {
    if (navigator.clipboard) { await navigator.clipboard.writeText(url); copied = true; }
  } catch (e) { copied = false; }
  note.textContent = copied ? _("Copied") : _("Could not copy: select the link below and copy it");
  setTimeout(() => { note.textContent = ""; }, 4000);
}

function finishCreated(data) {
  const ul = $("links");
  const li = document.createElement("li");
  const a = document.createElement("a");
  a.href = data.spectate_url;
  a.textContent = data.spectate_url;
  li.append(_("Spectators:") + " ", a);
  ul.appendChild(li);
  $("created").hidden = false;
  $("created").scrollIntoView();
  loadTables();
}

// The tables by state: open seats to join, games in play to watch, finished games (history, a
// page at a time) to replay or review.
let historyOffset = 0;
const PAGE = 20;

// The players of a table: accounts link to their pages with their ratings, guests are marked
// (club.nameNode).
function who(t) {
  const out = document.createDocumentFragment();
  t.seats.forEach((s, p) => {
    if (p) out.append(", ");
    out.append(s.open ? _("(open seat)") : club.nameNode(s, p));
    if (s.rating !== null && s.rating !== undefined) out.append(` (${club.rating(s.rating, s.provisional)})`);
  });
  return out;
}

function playersText(n) { return ngettext("{n} player", "{n} players", n); }

// A table row: each cell a text, or a node (a name with its link or mark).
function row(cells, actions) {
  const tr = document.createElement("tr");
  for (const c of cells) {
    const td = document.createElement("td");
    if (c instanceof Node) td.append(c); else td.textContent = c;
    tr.appendChild(td);
  }
  const td = document.createElement("td");
  td.append(...actions);
  tr.appendChild(td);
  return tr;
}

function link(text, href, download) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  if (download) a.download = "";
  return a;
}

// Joining asks for a name in the page's own dialog, not the browser's prompt; Cancel (or Esc)
// joins nothing.
let joining = null;
function join(t) {
  joining = t;
  $("join-name").value = "";
  $("join-dialog").showModal();
}
$("join-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const t = joining;
  joining = null;
  $("join-dialog").close();
  if (t) joinAs(t, $("join-name").value);
});
$("join-no").addEventListener("click", () => { joining = null; $("join-dialog").close(); });

async function joinAs(t, name) {
  const res = await fetch(`/api/tables/${encodeURIComponent(t.table)}/join`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name: name.trim() || null }) });
  const data = await res.json();
  if (!res.ok) { $("listerror").textContent = errorText(data, res.status); loadTables(); return; }
  location.href = data.url;
}

function fill(body, rows, empty) {
  body.replaceChildren(...rows);
  if (!rows.length) {
    const tr = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = 5;
    td.className = "dim";
    td.textContent = empty;
    tr.appendChild(td);
    body.appendChild(tr);
  }
}

// The lists say so when the server cannot be reached or refuses (never an empty list that looks
// like "no tables").
async function fetchList(url) {
  let res;
  try { res = await fetch(url); } catch (e) { throw new Error(_("The server cannot be reached: is it running? Reload to try again.")); }
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new Error(errorText(data, res.status));
  return data;
}

async function loadTables() {
  let all;
  try { all = await fetchList("/api/tables?finished=false"); } catch (e) {
    $("listerror").textContent = e.message;
    for (const id of ["opentables", "livetables"]) fill($(id), [], _("unknown: the server cannot be reached"));
    return;
  }
  $("listerror").textContent = "";
  // A table with an open seat waits for its players: it is listed to join, not as in play.
  const open = all.filter(t => t.seats.some(s => s.open));
  const live = all.filter(t => !t.seats.some(s => s.open));
  fill($("opentables"), open.map(t => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "primary";
    b.textContent = _("Join");
    b.addEventListener("click", () => join(t));
    const free = t.seats.filter(s => s.open).length;
    const waiting = ngettext("waiting for {n} player", "waiting for {n} players", free);
    return row([t.table, playersText(t.players), who(t), t.rated ? _("rated (accounts only)") + ", " + waiting : waiting], [b]);
  }), _("no open seats right now: create a table with an open seat and share the lobby"));
  // a game in play by its players, their ratings, its clock and its moves (its id is in the watch link)
  fill($("livetables"), live.map(t => {
    const r = row([who(t), timeControlText(t.time_control), String(t.moves)],
                  [link(_("watch"), `/table/${encodeURIComponent(t.table)}`)]);
    r.dataset.table = t.table;
    return r;
  }), _("no games in play"));
  historyOffset = 0;
  $("history").replaceChildren();
  loadHistory();
}

async function loadHistory() {
  let done;
  try { done = await fetchList(`/api/tables?finished=true&limit=${PAGE}&offset=${historyOffset}`); } catch (e) {
    $("listerror").textContent = e.message;
    if (historyOffset === 0) fill($("history"), [], _("unknown: the server cannot be reached"));
    return;
  }
  const rows = done.map(t => {
    const id = encodeURIComponent(t.table);
    const sep = () => document.createTextNode(" \u00b7 ");
    const names = t.seats.map((s, p) => seatName(s, p));
    return row([t.table, playersText(t.players), who(t), t.result ? gameResultText(t.result, names, t.teams || t.players) : ""],
               [link(_("replay"), `/replay/${id}`), sep(), link(_("review"), `/review/${id}`), sep(),
                link(_("game record"), `/api/tables/${id}/record`, true)]);
  });
  if (historyOffset === 0) fill($("history"), rows, _("no finished games yet"));
  else $("history").append(...rows);
  historyOffset += done.length;
  $("more").hidden = done.length < PAGE;
}

async function loadPresets() {
  try {
    const res = await fetch("/api/presets");
    // "level 6 (619)": the level and its measured rating (random = 0); a preset off the ladder by its name
    if (res.ok) PRESETS = (await res.json()).map(p => [p.name, "",
      (p.level ? _("level {n}", { n: p.level }) : aiName(p.name))
      + (p.rating !== null && p.rating !== undefined ? ` (${formatNumber(Math.round(p.rating))})` : ""), p.level]);
  } catch (e) { /* the lobby still works with the default preset */ }
  // "Play the computer" offers the same levels, with the same names and ratings
  for (const o of $("pc-level") ? $("pc-level").options : []) {
    const p = PRESETS.find(q => q[3] === +o.value);
    if (p) o.textContent = p[2];
  }
  updateTeams();
}

$("more").addEventListener("click", loadHistory);
updateTeams();
loadPresets();
loadTables();
