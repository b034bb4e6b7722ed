// The table page: a live websocket to /api/tables/{id}/ws, the board, your hand and the controls.
// The server decides everything (legal moves, errors); this page only shows and asks.
"use strict";

const tableId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const storageKey = "sequence-seat:" + tableId;
const hashToken = new URLSearchParams(location.hash.slice(1)).get("seat");
if (hashToken) localStorage.setItem(storageKey, hashToken);
const token = hashToken || localStorage.getItem(storageKey);

const $ = (id) => document.getElementById(id);
const board = new Board($("board"));
let ws = null, view = null, selected = null, cursor = null, choices = null, hint = null, retry = 0, fatal = false;

function say(text, isError) {
  const m = $("message");
  m.textContent = text || "";
  m.className = isError ? "error" : "";
}

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
  else say("not connected; reconnecting...", true);
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${proto}//${location.host}/api/tables/${encodeURIComponent(tableId)}/ws`);
  ws.onopen = () => { retry = 0; $("conn").textContent = ""; ws.send(JSON.stringify({ type: "hello", token: token || null })); };
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "state") { onState(msg.view); }
    else if (msg.type === "error") {
      say(msg.detail, true);
      if (/join link/.test(msg.detail) || /no table/.test(msg.detail)) fatal = true;
    } else if (msg.type === "hint") { onHint(msg); }
  };
  ws.onclose = () => {
    if (fatal) { $("conn").textContent = "disconnected"; return; }
    $("conn").textContent = "reconnecting...";
    setTimeout(connect, Math.min(5000, 500 * 2 ** retry++));
  };
}

function mine() { return view && view.legal.length > 0; }
function legalMoves() { return view ? view.legal.map(parseMove) : []; }
function movesOf(card) { return legalMoves().filter(m => m.card === card); }

function onState(v) {
  const changed = !view || v.version !== view.version;
  view = v;
  if (changed) {
    choices = null; hint = null;
    if (selected && !(v.state.hands[v.seat] || []).includes?.(selected)) selected = null;
    if (!mine()) selected = null;
    board.clearChoices();
    if (changed && !$("message").classList.contains("error")) say("");
  }
  render();
}

function onHint(msg) {
  if (!view || msg.version !== view.version) return;
  hint = parseMove(msg.move);
  if (hint.card) selected = hint.card;
  say("Hint: " + msg.move + (hint.kind === "trade" ? " (trade this dead card)" : ""));
  render();
}

function seatLabel(p) {
  const s = view.seats[p];
  return s.name + (view.you.length === 1 && view.you.includes(p) ? " (you)" : "");
}

function render() {
  const v = view, st = v.state;
  document.title = `Sequence ${v.table}` + (mine() ? " - your turn" : "");
  $("tablename").textContent = `table ${v.table}` + (v.you.length ? "" : " (spectating)");
  board.render(st, v.last_move);
  // status line
  const status = $("status");
  status.className = "";
  if (v.over) {
    status.textContent = v.result.text;
  } else if (v.thinking !== null) {
    status.textContent = `${seatLabel(v.thinking)} is thinking`;
    status.className = "thinking";
  } else if (mine()) {
    status.textContent = st.traded_this_turn ? "Your turn: you traded; now play a card" : "Your turn: pick a card, then a cell";
    status.className = "mine";
  } else if (v.hand_hidden) {
    status.textContent = `${seatLabel(st.current_player)}: your turn. Show your hand when nobody else is looking.`;
  } else {
    status.textContent = `${seatLabel(st.current_player)} to move`;
  }
  renderHand();
  renderActions();
  renderSeats();
  renderDiscards();
  renderLog();
  renderTargets();
  const banner = $("banner");
  if (v.over) {
    banner.hidden = false;
    banner.innerHTML = "";
    const h = document.createElement("div");
    h.className = "result";
    h.textContent = v.result.text;
    banner.appendChild(h);
    const links = document.createElement("div");
    links.innerHTML = `<a href="/replay/${encodeURIComponent(v.table)}">Replay the game</a> &middot; ` +
      `<a href="/api/tables/${encodeURIComponent(v.table)}/record" download>Download (JSON)</a> &middot; <a href="/">New table</a>`;
    banner.appendChild(links);
  } else banner.hidden = true;
}

function renderHand() {
  const hand = $("hand"), v = view;
  hand.replaceChildren();
  const cards = v.seat !== null ? v.state.hands[v.seat] : null;
  $("handtitle").textContent = v.seat !== null ? `Hand of ${seatLabel(v.seat)}` : (v.you.length ? "Hand hidden" : "Spectating: hands are hidden");
  if (v.hand_hidden) {
    const d = document.createElement("div");
    d.className = "hidden-hand";
    d.textContent = `Pass the screen to ${seatLabel(v.state.current_player)}.`;
    hand.appendChild(d);
    return;
  }
  if (!Array.isArray(cards)) return;
  cards.forEach((card, i) => {
    const ms = movesOf(card);
    const dead = ms.some(m => m.kind === "trade");
    const sub = dead ? "dead" : card === "JD" || card === "JC" ? "wild" : card === "JH" || card === "JS" ? "remove" : "";
    const el = cardFace(card, sub);
    el.setAttribute("aria-label", `${cardLabel(card)} ${sub}`.trim() + (i < 9 ? `, key ${i + 1}` : ""));
    if (i < 9) { const k = document.createElement("span"); k.className = "key"; k.textContent = i + 1; el.appendChild(k); }
    if (dead) el.classList.add("dead");
    if (mine() && ms.length === 0) el.classList.add("nomove");
    if (card === selected) el.classList.add("selected");
    el.addEventListener("click", () => selectCard(card));
    hand.appendChild(el);
  });
}

function renderActions() {
  const v = view, moves = legalMoves();
  const trade = selected && moves.find(m => m.kind === "trade" && m.card === selected);
  $("trade").hidden = !trade;
  $("pass").hidden = !moves.some(m => m.kind === "pass");
  $("hint").hidden = !v.you.length || v.over;
  $("hint").disabled = !mine();
  $("undo").hidden = !v.can_undo || v.over;
  $("reveal").hidden = !v.hand_hidden;
  const box = $("choices");
  box.replaceChildren();
  box.hidden = !choices;
  if (choices) {
    const label = document.createElement("div");
    label.className = "dim";
    label.style.width = "100%";
    label.textContent = "This placement makes sequences in several ways (R7): pick which five.";
    box.appendChild(label);
    choices.forEach((m, i) => {
      const b = document.createElement("button");
      b.dataset.choice = i + 1;
      b.textContent = `${i + 1}: ` + m.declares.map(([a, z]) => `${a}-${z}`).join(" and ");
      b.addEventListener("click", () => playMove(m.text));
      box.appendChild(b);
    });
    const cancel = document.createElement("button");
    cancel.textContent = "Cancel";
    cancel.addEventListener("click", () => { choices = null; board.clearChoices(); render(); });
    box.appendChild(cancel);
  }
}

function renderSeats() {
  const v = view, st = v.state, ul = $("seats");
  ul.replaceChildren();
  v.seats.forEach((s, p) => {
    const li = document.createElement("li");
    if (!v.over && st.current_player === p) li.classList.add("to-move");
    li.appendChild(teamBadge(s.team));
    const name = document.createElement("span");
    name.textContent = seatLabel(p);
    li.appendChild(name);
    const info = document.createElement("span");
    info.className = "dim";
    const n = Array.isArray(st.hands[p]) ? st.hands[p].length : st.hands[p];
    info.textContent = `${n} cards` + (s.kind === "ai" ? ` - AI ${s.ai}` : s.connected ? "" : " - away");
    li.appendChild(info);
    ul.appendChild(li);
  });
  const counts = [0, 0, 0];
  for (const s of st.sequences) counts[s.team]++;
  $("score").textContent = "Sequences: " + Array.from({ length: v.teams }, (_, t) => `${TEAM_NAMES[t]} ${counts[t]}/${v.to_win}`).join(", ");
}

function renderDiscards() {
  const st = view.state, box = $("discards");
  box.replaceChildren();
  $("drawpile").textContent = `- draw pile: ${st.draw_pile}`;
  st.discards.forEach((pile, p) => {
    const d = document.createElement("span");
    d.appendChild(teamBadge(view.seats[p].team));
    d.append(` ${view.seats[p].name}: `);
    if (!pile.length) d.append("-");
    for (const c of pile.slice(-4)) d.appendChild(miniCard(c));
    if (pile.length > 4) d.append(` (+${pile.length - 4})`);
    box.appendChild(d);
  });
}

function renderLog() {
  const log = $("log");
  log.replaceChildren();
  for (const [p, m] of view.history) {
    const li = document.createElement("li");
    li.textContent = `${view.seats[p].name}: ${m}`;
    log.appendChild(li);
  }
  log.start = view.moves - view.history.length + 1;
  log.scrollTop = log.scrollHeight;
}

function renderTargets() {
  board.clearMarks("target", "remove", "hinted", "cursor", "chosen");
  if (hint && hint.cell) board.mark([hint.cell], "hinted");
  if (selected) {
    for (const m of movesOf(selected)) {
      if (m.cell) board.mark([m.cell], "target", ...(m.kind === "remove" ? ["remove"] : []));
    }
  }
  if (cursor) board.mark([cursor], "cursor");
  if (choices) board.mark([choices[0].cell], "chosen");
}

function selectCard(card) {
  if (!view || view.seat === null) return;
  selected = selected === card ? null : card;
  choices = null;
  board.clearChoices();
  const targets = selected ? movesOf(selected).filter(m => m.cell) : [];
  if (targets.length && (!cursor || !targets.some(m => m.cell === cursor))) cursor = targets[0].cell;
  if (selected && mine()) {
    const ms = movesOf(selected);
    if (ms.some(m => m.kind === "trade")) say(`${cardLabel(selected)} is a dead card: both its cells are taken. Trade it.`);
    else if (!ms.length) say(`${cardLabel(selected)} has no legal play now.`);
    else if (selected === "JH" || selected === "JS") say("One-eyed jack: click a chip to remove it.");
    else say("");
  }
  render();
}

function clickCell(cell) {
  if (!view) return;
  cursor = cell;
  if (view.over) return;
  if (!view.you.length) { say("You are spectating: open a seat's join link to play.", true); return; }
  if (!selected) { say("Pick a card from your hand first, then a cell.", true); render(); return; }
  const here = movesOf(selected).filter(m => m.cell === cell);
  if (here.length > 1) {
    choices = here;
    board.showChoices(here, (m) => playMove(m.text));
    say("Pick which sequence(s) to declare: click a numbered line or a button.");
    render();
    return;
  }
  // anything else goes to the server, which plays it or says why not
  const jack1 = selected === "JH" || selected === "JS";
  playMove(here.length === 1 ? here[0].text : `${selected}${jack1 ? "x" : "@"}${cell}`);
}

function playMove(text) {
  choices = null;
  board.clearChoices();
  say("");
  send({ type: "move", move: text, version: view.version });
}

function moveCursor(dr, dc) {
  let [r, c] = cursor ? parseCell(cursor) : [0, 0];
  r = Math.max(0, Math.min(9, r + dr));
  c = Math.max(0, Math.min(9, c + dc));
  cursor = cellName(r, c);
  renderTargets();
}

function nextTarget() {
  const targets = selected ? [...new Set(movesOf(selected).filter(m => m.cell).map(m => m.cell))] : [];
  if (!targets.length) return;
  const i = targets.indexOf(cursor);
  cursor = targets[(i + 1) % targets.length];
  renderTargets();
}

document.addEventListener("keydown", (ev) => {
  if (!view || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.target.tagName === "INPUT") return;
  const k = ev.key;
  if (choices && /^[1-9]$/.test(k)) { const m = choices[+k - 1]; if (m) playMove(m.text); ev.preventDefault(); return; }
  const cards = view.seat !== null && Array.isArray(view.state.hands[view.seat]) ? view.state.hands[view.seat] : [];
  if (/^[1-9]$/.test(k)) { if (cards[+k - 1]) selectCard(cards[+k - 1]); ev.preventDefault(); return; }
  const arrows = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  if (arrows[k]) { moveCursor(...arrows[k]); ev.preventDefault(); return; }
  if ((k === "Enter" || k === " ") && cursor && ev.target.tagName !== "BUTTON") { clickCell(cursor); ev.preventDefault(); return; }
  if (k === "n") nextTarget();
  else if (k === "t" && !$("trade").hidden) $("trade").click();
  else if (k === "p" && !$("pass").hidden) $("pass").click();
  else if (k === "h" && !$("hint").disabled && !$("hint").hidden) $("hint").click();
  else if (k === "u" && !$("undo").hidden) $("undo").click();
  else if (k === "Escape") { selected = null; choices = null; board.clearChoices(); say(""); render(); }
});

$("trade").addEventListener("click", () => selected && playMove(`trade ${selected}`));
$("pass").addEventListener("click", () => playMove("pass"));
$("hint").addEventListener("click", () => { say("Asking the AI..."); send({ type: "hint" }); });
$("undo").addEventListener("click", () => { say(""); send({ type: "undo" }); });
$("reveal").addEventListener("click", () => send({ type: "reveal" }));

board.load().then(() => { board.onCellClick = clickCell; connect(); });
