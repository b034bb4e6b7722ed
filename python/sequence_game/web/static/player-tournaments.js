"use strict";
// A player's finished tournaments on its page (/players/NAME): place among the entrants, points.

(async function playerTournaments() {
  const parts = location.pathname.split("/").filter(Boolean);
  const body = document.getElementById("tournaments");
  if (parts.length < 2 || !body) return;
  let rows = [];
  try {
    const res = await fetch(`/api/players/${encodeURIComponent(decodeURIComponent(parts[1]))}/tournaments`);
    if (res.ok) rows = await res.json();
  } catch (e) { rows = []; }
  const line = cells => {
    const r = document.createElement("tr");
    for (const c of cells) {
      const td = document.createElement("td");
      if (c instanceof Node) td.appendChild(c); else td.textContent = c;
      r.appendChild(td);
    }
    return r;
  };
  body.replaceChildren(...(rows.length ? rows.map(t => {
    const a = document.createElement("a");
    a.href = `/tournaments/${encodeURIComponent(t.tournament)}`;
    a.textContent = t.names.length > 1 ? _("{name} (with {team})", { name: t.name, team: t.names.join(" & ") }) : t.name;
    return line([a, t.finished ? formatDate(new Date(t.finished * 1000).toISOString()) : "",
                 _("{place} of {entrants}", { place: t.place, entrants: t.entrants }),
                 formatNumber(t.points, { maximumFractionDigits: 2 })]);
  }) : [line([_("no tournament played yet"), "", "", ""])]));
})();
