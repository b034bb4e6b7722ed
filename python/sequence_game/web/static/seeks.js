// The lobby's ways to find a game: play the computer in one click, post a seek, accept one from
// the live list, quick pairing. The server decides (routers/seeks.py); this page shows and asks.
"use strict";

// Time controls a player knows: none, a turn timer, Fischer clocks, BGA-style time banks.
const TIME_CONTROLS = [
  ["none", _("no clock"), {}],
  ["turn60", _("1 min a turn (then the computer moves)"), { turn_seconds: 60 }],
  ["f3+2", _("{m} min + {s} s a move", { m: 3, s: 2 }), { clock: { kind: "fischer", seconds: 180, increment: 2, at_zero: "lose" } }],
  ["f10+5", _("{m} min + {s} s a move", { m: 10, s: 5 }), { clock: { kind: "fischer", seconds: 600, increment: 5, at_zero: "lose" } }],
  ["b5+30", _("time bank {m} min, +{s} s a turn", { m: 5, s: 30 }), { clock: { kind: "bank", seconds: 300, increment: 30, at_zero: "ai" } }],
];

function clockName(s) {
  return timeControlText(s.clock || (s.turn_seconds ? { kind: "turn", seconds: s.turn_seconds } : null));
}

for (const sel of document.querySelectorAll(".timecontrol")) {
  for (const [v, label] of TIME_CONTROLS) sel.add(new Option(label, v));
}
for (let lv = 1; lv <= 8; lv++) $("pc-level").add(new Option(_("level {n}", { n: lv }), String(lv)));
$("pc-level").value = "4";

function timeControl(sel, players) {
  const tc = { ...TIME_CONTROLS.find(t => t[0] === sel.value)[2] };
  // three teams cannot lose on time (the game would go on without a team): the AI moves instead
  if (tc.clock && players % 3 === 0 && players !== 6) tc.clock = { ...tc.clock, at_zero: "ai" };
  return tc;
}

async function postJSON(url, body, headers) {
  let res;
  try {
    res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", ...(headers || {}) },
                             body: JSON.stringify(body) });
  } catch (e) { throw new Error(unreachable()); }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(errorText(data, res.status));
  return data;
}

$("computer").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  $("pc-error").textContent = "";
  const body = { level: +$("pc-level").value, ...timeControl($("pc-clock"), 2) };
  if ($("pc-seat").value !== "") body.seat = +$("pc-seat").value;
  try { location.href = (await postJSON("/api/play-computer", body)).seats[0].url; }
  catch (e) { $("pc-error").textContent = e.message; }
});

// ---------------------------------------------------------------- seeks

let mySeek = null;  // {seek, token} of the seek this page posted
const MY_SEEK = "sequence-my-seek";

function signedIn() {
  const me = club.me;
  return !!(me && me.accounts && me.name);
}

// Rated seeks are for signed-in accounts (docs/club.md): the box is offered once the page knows one
// is, and so is the opponent's rating range (a rated seek's). Signed in, a seek is posted under the
// account's name (the server ignores a name then): "as NAME" replaces the name field.
function offerRated() {
  const box = $("sk-rated");
  box.disabled = !signedIn();
  if (box.disabled) box.checked = false;
  $("sk-range").disabled = !box.checked;
  $("sk-name-label").hidden = signedIn();
  const as = $("sk-as");
  as.hidden = !signedIn();
  as.textContent = signedIn() ? _("as {name}", { name: club.me.name }) : "";
}
document.addEventListener("club:me", offerRated);
$("sk-rated").addEventListener("change", offerRated);
for (const id of ["sk-min", "sk-max"]) $(id).addEventListener("input", () => { $("sk-error").textContent = ""; });
offerRated();

const RATING_MAX = 5000;  // models.SeekRequest's bound

// One bound of the range: null when empty; a whole number from 0 to RATING_MAX, else an Error
// saying what is wrong (the server checks the same).
function ratingBound(input, lowest) {
  if (input.validity.badInput) throw new Error(lowest ? _("The lowest rating is a number (digits only).") : _("The highest rating is a number (digits only)."));
  const text = input.value.trim();
  if (text === "") return null;
  if (!/^[0-9]{1,4}$/.test(text) || +text > RATING_MAX) {
    const f = { max: RATING_MAX, text };
    throw new Error(lowest ? _("The lowest rating is a whole number from 0 to {max}, not {text}.", f)
                           : _("The highest rating is a whole number from 0 to {max}, not {text}.", f));
  }
  return +text;
}

function seekBody() {
  const players = +$("sk-players").value;
  const body = { players, ...timeControl($("sk-clock"), players), rated: $("sk-rated").checked };
  if (!$("sk-range").disabled) {
    const low = ratingBound($("sk-min"), true), high = ratingBound($("sk-max"), false);
    if (low !== null && high !== null && low > high) throw new Error(_("The lowest rating ({low}) is above the highest ({high}).", { low, high }));
    if (low !== null) body.rating_min = low;
    if (high !== null) body.rating_max = high;
  }
  const name = $("sk-name").value.trim();
  if (name && !signedIn()) body.name = name;
  return body;
}

// "1400 to 1600", "1400 or more", "1600 or less"; "" for a seek without a range.
function rangeText(s) {
  const low = s.rating_min ?? null, high = s.rating_max ?? null;
  if (low === null && high === null) return "";
  if (high === null) return _("{low} or more", { low });
  if (low === null) return _("{high} or less", { high });
  return _("{low} to {high}", { low, high });
}

function showMySeek(text) {
  const p = $("myseek");
  p.replaceChildren();
  if (!mySeek) { p.hidden = true; return; }
  p.hidden = false;
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.textContent = _("Cancel my seek");
  cancel.addEventListener("click", cancelMySeek);
  p.append(text || _("Your seek is in the list: waiting for an opponent. Keep this page open.") + " ", cancel);
}

async function cancelMySeek() {
  if (!mySeek) return;
  const s = mySeek;
  mySeek = null;
  sessionStorage.removeItem(MY_SEEK);
  showMySeek();
  try { await fetch(`/api/seeks/${encodeURIComponent(s.seek)}`, { method: "DELETE", headers: { Authorization: `Bearer ${s.token}` } }); }
  catch (e) { /* it expires by itself once this page stops asking */ }
}

// The poster's page asks about its seek (a long-poll): that keeps it open, and brings the seat's
// link once someone accepts it.
async function watchMySeek() {
  while (mySeek) {
    const s = mySeek;
    let data;
    try {
      const res = await fetch(`/api/seeks/${encodeURIComponent(s.seek)}?wait=20`, { headers: { Authorization: `Bearer ${s.token}` } });
      data = await res.json();
      if (!res.ok) throw new Error(errorText(data, res.status));
    } catch (e) {
      if (mySeek === s) { mySeek = null; sessionStorage.removeItem(MY_SEEK); showMySeek(); $("sk-error").textContent = _("Your seek is gone: {why}", { why: e.message }); }
      return;
    }
    if (mySeek !== s) return;
    if (data.status === "accepted" && data.seat) { sessionStorage.removeItem(MY_SEEK); location.href = data.seat.url; return; }
    if (data.status !== "open") {
      mySeek = null; sessionStorage.removeItem(MY_SEEK); showMySeek();
      $("sk-error").textContent = { expired: _("Your seek expired."), cancelled: _("Your seek was cancelled.") }[data.status] || _("Your seek is closed.");
      return;
    }
  }
}

function startMySeek(posted) {
  mySeek = { seek: posted.seek, token: posted.token };
  sessionStorage.setItem(MY_SEEK, JSON.stringify(mySeek));
  showMySeek();
  watchMySeek();
}

$("seekform").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  $("sk-error").textContent = "";
  if (mySeek) { $("sk-error").textContent = _("You have a seek open already: cancel it first."); return; }
  try { startMySeek(await postJSON("/api/seeks", seekBody())); } catch (e) { $("sk-error").textContent = e.message; }
});

$("sk-quick").addEventListener("click", async () => {
  $("sk-error").textContent = "";
  const headers = mySeek ? { Authorization: `Bearer ${mySeek.token}` } : {};
  try {
    const data = await postJSON("/api/seeks/quick", seekBody(), headers);
    if (data.status === "paired") { await cancelMySeek(); location.href = data.seat.url; return; }
    if (mySeek) await cancelMySeek();
    startMySeek(data.seek);
  } catch (e) { $("sk-error").textContent = e.message; }
});

async function accept(s) {
  $("sk-error").textContent = "";
  const name = signedIn() ? "" : $("sk-name").value.trim();
  const headers = mySeek ? { Authorization: `Bearer ${mySeek.token}` } : {};
  try {
    const link = await postJSON(`/api/seeks/${encodeURIComponent(s.seek)}/accept`, name ? { name } : {}, headers);
    await cancelMySeek();
    location.href = link.url;
  } catch (e) { $("sk-error").textContent = e.message; }
}

function renderSeeks(list) {
  const rows = list.seeks.map(s => {
    const b = document.createElement("button");
    const own = mySeek && mySeek.seek === s.seek;
    const poster = { kind: "human", name: s.name, account: s.account };
    b.type = "button";
    b.className = "primary";
    b.textContent = own ? _("yours") : _("Accept");
    b.disabled = own;
    b.setAttribute("aria-label", own ? _("your own seek") : _("accept the seek of {name}", { name: seatName(poster, 0) }));
    b.addEventListener("click", () => accept(s));
    const range = rangeText(s);
    // an account's seek: its name links to its page, with its rating; a guest's is marked, unrated
    const who = document.createElement("span");
    who.append(club.nameNode(poster, 0));
    if (s.account && s.rating !== null && s.rating !== undefined) who.append(` (${club.rating(s.rating, s.provisional)})`);
    const kind = s.rated ? _("rated") : _("casual");
    return row([who, playersText(s.players) + ", " + ngettext("{n} team", "{n} teams", s.teams), clockName(s),
                range ? kind + ", " + _("opponents rated {range}", { range }) : kind], [b]);
  });
  fill($("seeks"), rows, _("no open seeks: post one, or use quick pairing"));
}

// The list is live: a long-poll answers at the next change.
async function followSeeks() {
  let version = null;
  for (;;) {
    try {
      const url = version === null ? "/api/seeks" : `/api/seeks?after_version=${version}&wait=25`;
      const res = await fetch(url);
      const data = await res.json();
      if (!res.ok) throw new Error(errorText(data, res.status));
      version = data.version;
      renderSeeks(data);
    } catch (e) {
      fill($("seeks"), [], _("unknown: the server cannot be reached"));
      await new Promise(r => setTimeout(r, 5000));
      version = null;
    }
  }
}

const kept = sessionStorage.getItem(MY_SEEK);
if (kept) { try { mySeek = JSON.parse(kept); showMySeek(); watchMySeek(); } catch (e) { sessionStorage.removeItem(MY_SEEK); } }
followSeeks();
