"use strict";
// The lobby's tournaments (docs/club.md, "Tournaments"): the announced, running and last finished
// ones, and the form a signed-in member announces one with. Names are set as text, never as HTML.

(function tournaments() {
  const byId = id => document.getElementById(id);
  const KIND = () => ({ swiss: _("Swiss"), arena: _("Arena") });
  const STATUS = () => ({ upcoming: _("announced"), running: _("running"), finished: _("finished") });

  function row(t) {
    const r = document.createElement("tr");
    const a = document.createElement("a");
    a.href = `/tournaments/${encodeURIComponent(t.tournament)}`;
    a.textContent = t.name;
    const cells = [a, KIND()[t.kind], formatDate(new Date(t.starts * 1000).toISOString(), true), STATUS()[t.status], String(t.entrants)];
    for (const c of cells) {
      const td = document.createElement("td");
      if (c instanceof Node) td.appendChild(c); else td.textContent = c;
      r.appendChild(td);
    }
    return r;
  }

  async function list() {
    const body = byId("tournaments");
    if (!body) return;
    let data = null;
    try {
      const res = await fetch("/api/tournaments");
      if (res.ok) data = await res.json();
    } catch (e) { data = null; }
    const rows = data ? data.tournaments : [];
    if (rows.length) body.replaceChildren(...rows.map(row));
    else {
      const r = document.createElement("tr");
      const td = document.createElement("td");
      td.colSpan = 5;
      td.textContent = _("no tournament announced yet");
      r.appendChild(td);
      body.replaceChildren(r);
    }
  }

  const form = byId("tournamentform");
  if (!form) return;
  byId("tn-kind").addEventListener("change", () => {
    const swiss = byId("tn-kind").value === "swiss";
    byId("tn-rounds-label").hidden = !swiss;
    byId("tn-minutes-label").hidden = swiss;
  });
  form.addEventListener("submit", async ev => {
    ev.preventDefault();
    byId("tn-error").textContent = "";
    const kind = byId("tn-kind").value;
    const body = {
      kind, name: byId("tn-name").value.trim(), starts: Date.now() / 1000 + 60 * Number(byId("tn-in").value || 0),
      rounds: kind === "swiss" ? Number(byId("tn-rounds").value) : null,
      minutes: kind === "arena" ? Number(byId("tn-minutes").value) : null,
      clock: { seconds: 60 * Number(byId("tn-clock").value), increment: Number(byId("tn-inc").value || 0) },
      rated: byId("tn-rated").checked, team_size: Number(byId("tn-team").value),
    };
    let res, data;
    try {
      res = await fetch("/api/tournaments", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      data = await res.json();
    } catch (e) {
      byId("tn-error").textContent = unreachable();
      return;
    }
    if (!res.ok) { byId("tn-error").textContent = errorText(data, res.status); return; }
    location.href = `/tournaments/${encodeURIComponent(data.tournament)}`;
  });
  document.addEventListener("club:me", () => { form.hidden = !(club.me && club.me.name); });
  list();
  setInterval(list, 5000);
})();
