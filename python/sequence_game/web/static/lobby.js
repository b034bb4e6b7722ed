// The lobby: the new-table form and the list of tables.
"use strict";

const VALID = [2, 3, 4, 6, 8, 9, 10, 12];
const TEAM_CHOICES = { 2: [2], 3: [3], 4: [2], 6: [2, 3], 8: [2], 9: [3], 10: [2], 12: [2, 3] };
let PRESETS = [["medium", ""]];  // [name, summary] from GET /api/presets (agents/presets.py), weakest first
const $ = (id) => document.getElementById(id);

for (const n of VALID) $("players").add(new Option(String(n), String(n)));

function teamsNow() {
  const players = +$("players").value;
  return +$("teams").value || TEAM_CHOICES[players][0];
}

function updateTeams() {
  const players = +$("players").value, sel = $("teams"), old = +sel.value;
  sel.replaceChildren();
  for (const t of TEAM_CHOICES[players]) sel.add(new Option(players <= 3 ? `${t} (each alone)` : String(t), String(t)));
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
    label.append(` Seat ${p + 1}`);
    const kind = document.createElement("select");
    kind.className = "kind";
    kind.setAttribute("aria-label", `seat ${p + 1} player`);
    kind.add(new Option("Human", "human"));
    kind.add(new Option("AI", "ai"));
    const ai = document.createElement("select");
    ai.className = "ai";
    ai.setAttribute("aria-label", `seat ${p + 1} AI strength`);
    for (const [v, t] of PRESETS) { const o = new Option(v, v); o.title = t; ai.add(o); }
    ai.value = "medium";
    const name = document.createElement("input");
    name.className = "name";
    name.maxLength = 32;
    name.placeholder = "name (optional)";
    name.setAttribute("aria-label", `seat ${p + 1} name`);
    const prev = old[p];
    kind.value = prev ? prev.kind : p === 0 ? "human" : "ai";
    if (prev) { ai.value = prev.ai; name.value = prev.name; }
    const sync = () => { ai.disabled = kind.value !== "ai"; };
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
    return { kind, ai: kind === "ai" ? r.querySelector(".ai").value : null, name: name || null };
  });
  const body = { players: +$("players").value, teams: teamsNow(), seats, hot_seat: $("hotseat").checked,
                 ai_seconds: +$("aiseconds").value };
  if ($("seed").value !== "") body.seed = +$("seed").value;
  const res = await fetch("/api/tables", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const data = await res.json();
  if (!res.ok) { $("formerror").textContent = data.detail; return; }
  if (data.seats.length === 1) { location.href = data.seats[0].url; return; }
  const ul = $("links");
  ul.replaceChildren();
  for (const s of data.seats) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = s.url;
    a.textContent = `Seat ${s.seat + 1} (${seats[s.seat].name || "player " + (s.seat + 1)})`;
    const copy = document.createElement("button");
    copy.type = "button";
    copy.textContent = "Copy link";
    copy.addEventListener("click", () => navigator.clipboard && navigator.clipboard.writeText(s.url));
    li.append(a, " ", copy, document.createElement("br"), s.url);
    ul.appendChild(li);
  }
  const li = document.createElement("li");
  li.innerHTML = `Spectators: <a href="${data.spectate_url}">${data.spectate_url}</a>`;
  ul.appendChild(li);
  $("created").hidden = false;
  $("created").scrollIntoView();
  loadTables();
});

async function loadTables() {
  const res = await fetch("/api/tables");
  const rows = await res.json(), body = $("tables");
  body.replaceChildren();
  for (const t of rows) {
    const tr = document.createElement("tr");
    const who = t.seats.map(s => s.kind === "ai" ? `AI ${s.ai}` : s.name).join(", ");
    const state = t.over ? t.result.text : "playing";
    const id = encodeURIComponent(t.table);
    const link = t.over ? `<a href="/replay/${id}">replay</a> &middot; <a href="/api/tables/${id}/record" download>JSON</a>`
                        : `<a href="/table/${id}">watch</a>`;
    tr.innerHTML = `<td>${id}</td><td></td><td>${t.turn}</td><td></td><td>${link}</td>`;
    tr.children[1].textContent = who;
    tr.children[3].textContent = state;
    body.appendChild(tr);
  }
  if (!rows.length) body.innerHTML = '<tr><td colspan="5" class="dim">no tables yet</td></tr>';
}

async function loadPresets() {
  try {
    const res = await fetch("/api/presets");
    if (res.ok) PRESETS = (await res.json()).map(p => [p.name, p.summary]);
  } catch (e) { /* the lobby still works with the default preset */ }
  updateTeams();
}

updateTeams();
loadPresets();
loadTables();
