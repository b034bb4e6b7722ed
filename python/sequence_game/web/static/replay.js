// Step through a finished game: GET /api/tables/{id}/replay has every position.
"use strict";

const tableId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const $ = (id) => document.getElementById(id);
const board = new Board($("board"));
let data = null, index = 0;

// a seat's name as every page shows it: a guest's marked (docs/club.md, "Names")
function name(p) { return recordName(data.names[p], p, (data.accounts || [])[p], data.record.agents[p] === "human"); }

function show(i) {
  index = Math.max(0, Math.min(data.steps.length - 1, i));
  const step = data.steps[index], st = step.state;
  $("slider").value = index;
  board.render(st, step.move ? { player: step.player, move: step.move } : null);
  renderChances($("chancebox"), step.chances);
  const r = data.record.result;
  const last = data.steps.length - 1;
  $("status").textContent = index === 0 ? _("The deal") :
    _("Move {k} of {n}: {name}: {move}", { k: index, n: last, name: name(step.player), move: humanMove(step.move) }) +
    (index === last && r ? " - " + (data.record.ending === "aborted" ? _("aborted")
      : r.is_draw || r.winner === null ? _("draw") : _("{team} wins", { team: teamLabel(r.winner) })) : "");
  const hands = $("hands");
  hands.replaceChildren();
  st.hands.forEach((h, p) => {
    const row = document.createElement("div");
    row.appendChild(teamBadge(p % data.record.teams));
    row.append(` ${name(p)}: `);
    for (const c of h) row.appendChild(miniCard(c));
    hands.appendChild(row);
  });
  [...$("log").children].forEach((li, k) => { li.style.fontWeight = k + 1 === index ? "bold" : ""; });
  const current = $("log").children[index - 1];
  if (current) current.scrollIntoView({ block: "nearest" });
}

async function main() {
  await board.load();
  const res = await fetch(`/api/tables/${encodeURIComponent(tableId)}/replay`);
  data = await res.json();
  if (!res.ok) { $("status").textContent = errorText(data, res.status); return; }
  $("title").textContent = _("replay of table {table}", { table: tableId });
  $("download").href = `/api/tables/${encodeURIComponent(tableId)}/record`;
  $("slider").max = data.steps.length - 1;
  const log = $("log");
  for (const step of data.steps.slice(1)) {
    const li = document.createElement("li");
    li.textContent = `${name(step.player)}: ${humanMove(step.move)}`;
    li.style.cursor = "pointer";
    li.addEventListener("click", () => show(step.index));
    log.appendChild(li);
  }
  show(data.steps.length - 1);
}

$("first").addEventListener("click", () => show(0));
$("prev").addEventListener("click", () => show(index - 1));
$("next").addEventListener("click", () => show(index + 1));
$("last").addEventListener("click", () => show(data.steps.length - 1));
$("slider").addEventListener("input", (ev) => show(+ev.target.value));
document.addEventListener("keydown", (ev) => {
  if (!data) return;
  const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1 };
  if (moves[ev.key]) { show(index + moves[ev.key]); ev.preventDefault(); }
  else if (ev.key === "Home") show(0);
  else if (ev.key === "End") show(data.steps.length - 1);
});
main();
