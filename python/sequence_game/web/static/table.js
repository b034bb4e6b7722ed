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
let ws = null, view = null, selected = null, selectedAt = null, cursor = null, choices = null, hint = null, retry = 0, fatal = false;
let hintPicked = false;     // the selected card was picked by a hint, not by the player
let refusedNote = false;  // the message says the socket was refused: cleared once one opens
let browsing = null;        // null: the live position; k: looking at the position after move k
let fullHistory = null;     // the whole public move list, once fetched for browsing
let gameOverShown = false;  // the game-over dialog opens once per page
let sound = localStorage.getItem("sequence-sound") === "on";
let timeoutNote = null;     // shown once with the next position
let deadline = null, clockTimer = null;  // this turn's time-out (local clock), from the view's turn_left
let clockAt = Date.now();   // when the view's game clocks were read
const muted = new Set();    // chat writers this page does not show (muting is the reader's own)
let chatName = null;        // a spectator's own name in the spectators' chat

// A rematch is a new table with the same seats: the same token opens it (kept per table).
function goToRematch(id) {
  if (token) localStorage.setItem("sequence-seat:" + id, token);
  location.assign(`/table/${encodeURIComponent(id)}` + (token ? `#seat=${encodeURIComponent(token)}` : ""));
}

// One message line; any message, error or not, lasts until the game moves on (the next version).
function say(text, isError) {
  const m = $("message");
  m.textContent = text || "";
  m.className = isError ? "error" : "";
}

// Sound, off by default (the header's toggle): a short tone for a chip, a removal, a sequence and
// your turn. Web Audio, so there are no files to load.
let audio = null;
function tone(kind) {
  if (!sound) return;
  try {
    audio = audio || new AudioContext();
    const freq = { place: 523, remove: 330, sequence: 784, turn: 659 }[kind] || 440;
    const o = audio.createOscillator(), g = audio.createGain(), t = audio.currentTime;
    o.frequency.value = freq;
    g.gain.setValueAtTime(0.12, t);
    g.gain.exponentialRampToValueAtTime(0.001, t + (kind === "sequence" ? 0.6 : 0.18));
    o.connect(g).connect(audio.destination);
    o.start(t);
    o.stop(t + 0.65);
  } catch (e) { /* no audio device: stay silent */ }
}
function renderSound() {
  const b = $("sound");
  b.textContent = sound ? _("Sound: on") : _("Sound: off");
  b.setAttribute("aria-pressed", String(sound));
}

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
  else say(_("Not connected; reconnecting..."), true);
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  let opened = false;
  ws = new WebSocket(`${proto}//${location.host}/api/tables/${encodeURIComponent(tableId)}/ws`);
  ws.onopen = () => {
    opened = true; retry = 0; $("conn").textContent = "";
    if (refusedNote) { say(""); refusedNote = false; }
    ws.send(JSON.stringify({ type: "hello", token: token || null, chat: true }));
  };
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "state") { onState(msg.view); }
    else if (msg.type === "error") {
      say(errorText(msg, 0, { IllegalMoveError: illegalMoveText() }), true);
      if (msg.error === "NotAllowedError" && !view) fatal = true;  // a wrong token: refused at the hello
    } else if (msg.type === "hint") { onHint(msg); }
    else if (msg.type === "rematch") { goToRematch(msg.table); }
    else if (msg.type === "rematch-offer" && view) { onOfferFrame(msg); }
    else if (msg.type === "timeout" && view) {
      timeoutNote = _("{name} ran out of time: the computer played {move} for them.", { name: seatName(view.seats[msg.seat], msg.seat), move: humanMove(msg.move) });
    }
    else if (msg.type === "flag" && view) {
      timeoutNote = _("{name} ran out of time: their team loses on time.", { name: seatName(view.seats[msg.seat], msg.seat) });
    }
    else if (msg.type === "chat-log") { onChatLog(msg); }
    else if (msg.type === "chat") { addChat(msg); }
    else if (msg.type === "reported") { markReported(msg.message); }
    else if (msg.type === "spectators") { renderSpectators(msg.count); }
    else if (msg.type === "presence" && view) { msg.connected.forEach((c, p) => { view.seats[p].connected = c; }); render(); }
  };
  ws.onclose = () => {
    if (fatal) { $("conn").textContent = _("disconnected"); return; }
    if (!opened) { whyRefused(); return; }
    reconnect();
  };
}

function reconnect() {
  $("conn").textContent = _("reconnecting...");
  setTimeout(connect, Math.min(5000, 500 * 2 ** retry++));
}

// A socket the server refused in its handshake (no such table, an expired one, too many
// connections) shows the page no reason: browsers hide the HTTP status. The table over HTTP answers
// with the same refusal and its message; if it answers with the table, the socket was refused for
// being over a connection cap: the page shows the table as it is now and keeps retrying.
async function whyRefused() {
  let res = null, data = null;
  try {
    res = await fetch(`/api/tables/${encodeURIComponent(tableId)}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    data = await res.json();
  } catch (e) { res = null; /* the server is unreachable: retry as after any lost connection */ }
  if (res && [403, 404, 410].includes(res.status)) {
    noTable(errorText(data, res.status));
    return;
  }
  if (res && res.ok) {
    if (!view || data.version >= view.version) onState(data);
    say(_("The server refused a live connection (too many are open, from this address or in all); retrying..."), true);
    refusedNote = true;
  } else if (data && data.error) {
    say(errorText(data, res ? res.status : 0), true);
    refusedNote = true;
  }
  reconnect();
}

// No table to show (none by that name, expired, or a join link that is not its): the board and
// the play panels would only mislead, so the page says why and points to the lobby.
function noTable(detail) {
  fatal = true;
  $("conn").textContent = _("disconnected");
  document.body.classList.add("no-table");
  $("status").textContent = _("This table cannot be opened");
  say(detail, true);
  const link = document.createElement("a");
  link.id = "lobbylink";
  link.href = "/";
  link.textContent = _("Back to the lobby");
  $("statusbox").append(link);
}

function mine() { return view && view.legal.length > 0; }
function legalMoves() { return view ? view.legal.map(parseMove) : []; }
function movesOf(card) { return legalMoves().filter(m => m.card === card); }

function onState(v) {
  const old = view;
  const changed = !old || v.version !== old.version;
  const oneMove = old && v.moves === old.moves + 1 && v.version === old.version + 1;
  view = v;
  if (changed) {
    choices = null; hint = null; hintPicked = false;
    keepSelection(v);
    if (!mine()) { selected = null; selectedAt = null; cursor = null; }
    board.clearChoices();
    say(timeoutNote || "");  // a message belongs to the position it was about
    timeoutNote = null;
    if (fullHistory && v.moves < fullHistory.length) fullHistory = null;  // an undo
    if (oneMove && v.last_move) {
      const m = parseMove(v.last_move.move);
      tone(v.state.sequences.length > old.state.sequences.length ? "sequence" : m.kind === "remove" ? "remove" : "place");
    }
    if (old && !old.legal.length && v.legal.length) tone("turn");
  }
  deadline = v.turn_left === null || v.turn_left === undefined ? null : Date.now() + v.turn_left * 1000;
  clockAt = Date.now();
  render(oneMove);
  tickClock();
}

// The selected card is one card of the hand (by its place: a hand may hold two copies of a card);
// it stays selected while that place still holds it, else follows the card, else is dropped.
function keepSelection(v) {
  const hand = v.seat !== null && Array.isArray(v.state.hands[v.seat]) ? v.state.hands[v.seat] : [];
  if (selected === null) { selectedAt = null; return; }
  if (hand[selectedAt] === selected) return;
  const at = hand.indexOf(selected);
  selectedAt = at >= 0 ? at : null;
  if (at < 0) selected = null;
}

// A table waits for its players while a seat is open: nobody moves until every seat is taken.
function openSeats(v) { return v.over ? 0 : v.seats.filter(s => s.open).length; }

// A game clock's time as m:ss (h:mm:ss past an hour).
function clockText(seconds) {
  const t = Math.max(0, Math.floor(seconds)), h = Math.floor(t / 3600), m = Math.floor(t / 60) % 60, s = t % 60;
  return (h ? `${h}:${String(m).padStart(2, "0")}` : String(m)) + ":" + String(s).padStart(2, "0");
}

// A seat's game clock now: the running one counts down from the view's time.
function clockLeft(p) {
  const c = view && view.clock;
  if (!c || c.left[p] === null) return null;
  return c.running === p ? c.left[p] - (Date.now() - clockAt) / 1000 : c.left[p];
}

// The turn timer or the game clocks: the seconds left for the seat to move, under the status
// line, and each seat's clock in the seat list.
function tickClock() {
  clearTimeout(clockTimer);
  const el = $("clock");
  if (view && !view.over && view.grace_left !== null && view.grace_left !== undefined && deadline !== null) {
    // a first move's grace: no clock runs; past it the game is aborted (nobody loses)
    const fields = { s: Math.max(0, Math.round((deadline - Date.now()) / 1000)), name: seatLabel(view.state.current_player) };
    el.textContent = mine() ? _("Your first move: {s} s left, not taken from your clock; then the game is aborted.", fields)
      : _("{name}'s first move: {s} s left; then the game is aborted.", fields);
    el.className = fields.s <= 10 ? "dim urgent" : "dim";
    clockTimer = setTimeout(tickClock, 1000);
    return;
  }
  if (view && view.clock) {
    for (const span of document.querySelectorAll("#seats .seat-clock")) {
      const left = clockLeft(+span.dataset.seat);
      if (left !== null) span.textContent = clockText(left);
      span.classList.toggle("urgent", view.clock.running === +span.dataset.seat && left !== null && left <= 10);
    }
    const c = view.clock, p = view.state.current_player;
    if (view.over || c.running === null) { el.textContent = ""; return; }
    const fields = { time: clockText(clockLeft(p)), s: c.increments ? c.increments[p] : c.increment, name: seatLabel(p) };
    const how = c.kind === "fischer" ? _("+{s} s a move", fields) : _("a bank, +{s} s a turn", fields);
    const zero = mine() ? (c.at_zero === "lose" ? _("at zero your team loses on time") : _("at zero the computer moves for you"))
      : (c.at_zero === "lose" ? _("at zero their team loses on time") : _("at zero the computer moves for them"));
    el.textContent = (mine() ? _("Your clock: {time}", fields) : _("{name}'s clock: {time}", fields)) + ` (${how}); ${zero}.`;
    el.className = clockLeft(p) <= 10 ? "dim urgent" : "dim";
    clockTimer = setTimeout(tickClock, 250);
    return;
  }
  if (view && !view.over && view.can_abort && !view.turn_seconds && !mine()
      && view.seats[view.state.current_player].kind === "human") {
    // no time control: nothing runs out while a person has not made a first move, so the others
    // are told they may end the wait (docs/club.md, "Abort")
    el.textContent = _("{name} has not made a first move yet: you may abort the game (nobody wins or loses, no rating changes).",
      { name: seatLabel(view.state.current_player) });
    el.className = "dim";
    return;
  }
  if (deadline === null || !view || view.over) { el.textContent = ""; return; }
  const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
  const time = left >= 60 ? _("{m} min {s} s", { m: Math.floor(left / 60), s: left % 60 }) : _("{s} s", { s: left });
  el.textContent = mine() ? _("You have {time} for this turn; then the computer moves for you.", { time })
    : _("{name} has {time} for this turn; then the computer moves for them.", { name: seatLabel(view.state.current_player), time });
  el.className = left <= 10 ? "dim urgent" : "dim";
  clockTimer = setTimeout(tickClock, 1000);
}

function onHint(msg) {
  if (!view || msg.version !== view.version) return;
  hint = parseMove(msg.move);
  if (hint.card) { selected = hint.card; keepSelection(view); hintPicked = selected !== null; }
  if (hint.cell) cursor = hint.cell;  // Enter then plays the hinted move, not the old cursor's cell
  say(hint.kind === "trade" ? _("Hint: {move} (a dead card: trade it)", { move: humanMove(hint) }) : _("Hint: {move}", { move: humanMove(hint) }));
  render();
}

// What the page says when the server refuses a move: the card picked and why it cannot go there,
// from what the page knows (the legal moves); the server's code alone says less.
function illegalMoveText() {
  if (!selected) return _("Pick a card from your hand first, then a space.");
  return _("{card} cannot go there: pick one of the lit spaces.", { card: cardLabel(selected) });
}

function seatLabel(p) {
  const s = view.seats[p];
  if (!(view.you.length === 1 && view.you.includes(p))) return seatName(s, p);
  return s.name === "You" ? _("You") : _("{name} (you)", { name: seatName(s, p) });
}

function render(animate) {
  const v = view, st = v.state;
  document.title = mine() ? _("Sequence {table} - your turn", { table: v.table }) : _("Sequence {table}", { table: v.table });
  $("tablename").textContent = v.you.length ? _("table {table}", { table: v.table }) : _("table {table} (spectating)", { table: v.table });
  if (browsing === null) board.render(st, v.last_move, animate);
  else renderBrowsed();
  // status line
  const status = $("status");
  status.className = "";
  if (v.over) {
    status.textContent = resultText(v);
  } else if (openSeats(v)) {
    const n = openSeats(v);
    status.textContent = ngettext("Waiting for players: {n} open seat. Share the lobby or the seat's link.",
                                  "Waiting for players: {n} open seats. Share the lobby or the seat's link.", n);
    status.className = "waiting";
  } else if (v.thinking !== null) {
    status.textContent = _("{name} is thinking", { name: seatLabel(v.thinking) });
    status.className = "thinking";
  } else if (mine()) {
    status.textContent = st.traded_this_turn ? _("Your turn: you traded; now play a card") : _("Your turn: pick a card, then a space");
    status.className = "mine";
  } else if (v.hand_hidden) {
    status.textContent = _("{name}: your turn. Show your hand when nobody else is looking.", { name: seatLabel(st.current_player) });
  } else {
    status.textContent = _("{name} to move", { name: seatLabel(st.current_player) });
  }
  renderChances($("chancebox"), v.chances);
  renderHand();
  renderActions();
  renderSeats();
  renderDiscards();
  renderLog();
  renderTargets();
  const banner = $("banner");
  if (v.over && $("ratings").dataset.table !== v.table) {
    $("ratings").dataset.table = v.table;
    club.showRatings(v.table, $("ratings"));
  }
  if (v.over) {
    banner.hidden = false;
    banner.innerHTML = "";
    const h = document.createElement("div");
    h.className = "result";
    h.textContent = resultText(v);
    banner.appendChild(h);
    const links = document.createElement("div");
    const id = encodeURIComponent(v.table), dot = () => " \u00b7 ";
    const a = (text, href, download) => { const e = document.createElement("a"); e.href = href; e.textContent = text; if (download) e.download = ""; return e; };
    links.append(a(_("Replay the game"), `/replay/${id}`), dot(), a(_("Review"), `/review/${id}`), dot(),
                 a(_("Download the game record"), `/api/tables/${id}/record`, true), dot(), a(_("New table"), "/"));
    if (v.rematch_allowed) links.prepend(...offerControls(v), " ");
    if (offerNote) {
      const note = document.createElement("div");
      note.id = "rematch-note";
      note.textContent = offerNote;
      banner.appendChild(note);
    }
    banner.appendChild(links);
    if (!gameOverShown) { gameOverShown = true; showGameOver(); }
    renderOffer();
  } else { banner.hidden = true; gameOverShown = false; }
}

async function joinSeat(p) {
  const res = await fetch(`/api/tables/${encodeURIComponent(tableId)}/join`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ seat: p }) });
  const data = await res.json();
  if (!res.ok) { say(errorText(data, res.status), true); return; }
  localStorage.setItem(storageKey, data.token);
  location.replace(data.url);
  location.reload();
}

// The end of the game: who won, in the reader's terms ("You won"), and the winning sequences.
function resultHeadline(v) {
  const r = v.result;
  if (r.aborted) return _("Game aborted");
  if (r.is_draw || r.winner === null) return _("Draw");
  if (v.you.length) {
    const mineWon = v.you.some(p => v.seats[p].team === r.winner);
    const allMine = v.you.every(p => v.seats[p].team === r.winner);
    if (v.you.length === 1 || allMine || !mineWon) return mineWon ? _("You won!") : _("You lost");
  }
  return _("{team} wins", { team: teamLabel(r.winner) });
}

// The result in words, from its parts: who won, after how many moves, and how it ended.
function resultText(v) {
  return gameResultText(v.result, v.seats.map((s, p) => seatName(s, p)), v.teams);
}

function showGameOver() {
  const v = view, dlg = $("gameover");
  $("gameover-title").textContent = resultHeadline(v);
  $("gameover-text").textContent = resultText(v);
  const list = $("gameover-sequences");
  list.replaceChildren();
  const winning = v.state.sequences.filter(s => s.team === v.result.winner);
  for (const s of winning) {
    const li = document.createElement("li");
    li.appendChild(teamBadge(s.team));
    const a = s.cells[0], z = s.cells[4];
    li.append(` ${cellName(a[0], a[1])}\u2013${cellName(z[0], z[1])}`);
    list.appendChild(li);
  }
  $("gameover-replay").href = `/replay/${encodeURIComponent(v.table)}`;
  $("gameover-review").href = `/review/${encodeURIComponent(v.table)}`;
  club.showRatings(v.table, $("gameover-ratings"));  // a rated game's rating changes (docs/club.md)
  if (typeof dlg.showModal === "function" && !dlg.open) dlg.showModal();
}

function renderHand() {
  const hand = $("hand"), v = view;
  hand.replaceChildren();
  const cards = v.seat !== null ? v.state.hands[v.seat] : null;
  $("handtitle").textContent = v.seat !== null ? (v.you.length === 1 ? _("Your hand") : _("Hand of {name}", { name: seatLabel(v.seat) }))
    : (v.you.length ? _("Hand hidden") : _("Spectating: hands are hidden"));
  if (v.hand_hidden) {
    const d = document.createElement("div");
    d.className = "hidden-hand";
    d.textContent = _("Pass the screen to {name}.", { name: seatLabel(v.state.current_player) });
    hand.appendChild(d);
    return;
  }
  if (!Array.isArray(cards)) return;
  cards.forEach((card, i) => {
    const ms = movesOf(card);
    const dead = ms.some(m => m.kind === "trade");
    const sub = dead ? _("dead") : card === "JD" || card === "JC" ? _("wild") : card === "JH" || card === "JS" ? _("remove") : "";
    const el = cardFace(card, sub);
    const spoken = sub ? `${cardSpoken(card)}, ${sub}` : cardSpoken(card);
    el.setAttribute("aria-label", i < 9 ? _("{card}, key {key}", { card: spoken, key: i + 1 }) : spoken);
    if (i < 9) { const k = document.createElement("span"); k.className = "key"; k.textContent = i + 1; el.appendChild(k); }
    if (dead) el.classList.add("dead");
    if (mine() && ms.length === 0) el.classList.add("nomove");
    if (i === selectedAt) el.classList.add("selected");
    el.addEventListener("click", () => selectCard(card, i));
    hand.appendChild(el);
  });
}

function renderActions() {
  const v = view, moves = legalMoves();
  const trade = selected && moves.find(m => m.kind === "trade" && m.card === selected);
  $("trade").hidden = !trade;
  $("pass").hidden = !moves.some(m => m.kind === "pass");
  // Spectators and a finished game have nothing to do here: no empty box.
  $("actionsbox").hidden = !v.you.length || v.over;
  $("hint").hidden = !v.you.length || v.over || v.hints === false;
  $("hint").disabled = !mine();
  $("undo").hidden = !v.can_undo || v.over;
  $("resign").hidden = !v.can_resign;
  $("abort").hidden = !v.can_abort;  // until every first move: then Resign (docs/club.md, "Abort")
  $("reveal").hidden = !v.hand_hidden;
  const box = $("choices");
  box.replaceChildren();
  box.hidden = !choices;
  if (choices) {
    const label = document.createElement("div");
    label.className = "dim";
    label.style.width = "100%";
    label.textContent = _("This chip completes a sequence in more than one way: pick the five chips that count.");
    box.appendChild(label);
    choices.forEach((m, i) => {
      const b = document.createElement("button");
      b.dataset.choice = i + 1;
      b.textContent = `${i + 1}: ` + m.declares.map(([a, z]) => `${a}\u2013${z}`).join(_(" and "));
      b.addEventListener("click", () => playMove(m.text));
      box.appendChild(b);
    });
    const cancel = document.createElement("button");
    cancel.textContent = _("Cancel");
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
    if (s.account) name.replaceChildren(club.playerLink(s.name), seatLabel(p).replace(s.name, ""));  // an account links to its page
    li.appendChild(name);
    const info = document.createElement("span");
    info.className = "dim";
    const n = Array.isArray(st.hands[p]) ? st.hands[p].length : st.hands[p];
    info.textContent = ngettext("{n} card", "{n} cards", n) + (s.open ? " - " + _("open") : s.kind !== "ai" && !s.connected ? " - " + _("away") : "");
    li.appendChild(info);
    if (v.clock && v.clock.left[p] !== null) {
      const c = document.createElement("span");
      c.className = "seat-clock" + (v.clock.flagged === p ? " flagged" : "");
      c.dataset.seat = String(p);
      c.setAttribute("role", "timer");
      c.setAttribute("aria-label", _("{name}'s clock", { name: seatName(s, p) }));
      c.textContent = clockText(clockLeft(p));
      li.appendChild(c);
    }
    if (s.open && !v.you.length && !v.over) {  // a spectator may take an open seat
      const b = document.createElement("button");
      b.type = "button";
      b.className = "primary";
      b.textContent = _("Take this seat");
      b.addEventListener("click", () => joinSeat(p));
      li.appendChild(b);
    }
    ul.appendChild(li);
  });
  const counts = [0, 0, 0];
  for (const s of st.sequences) counts[s.team]++;
  $("score").textContent = _("Sequences: {list}", { list: Array.from({ length: v.teams }, (x, t) => `${teamName(t)} ${counts[t]}/${v.to_win}`).join(", ") });
}

function renderDiscards() {
  const st = view.state, box = $("discards");
  box.replaceChildren();
  $("drawpile").textContent = "- " + _("draw pile: {n}", { n: st.draw_pile });
  st.discards.forEach((pile, p) => {
    const d = document.createElement("span");
    d.appendChild(teamBadge(view.seats[p].team));
    d.append(` ${seatName(view.seats[p], p)}: `);
    if (!pile.length) d.append("-");
    for (const c of pile.slice(-4)) d.appendChild(miniCard(c));
    if (pile.length > 4) d.append(` (+${pile.length - 4})`);
    box.appendChild(d);
  });
}

// The move list: each entry a button that shows the position after it (browsing); the live
// position stays one click (or Esc) away.
function renderLog() {
  const log = $("log");
  log.replaceChildren();
  const first = view.moves - view.history.length + 1;
  view.history.forEach(([p, m], i) => {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "move" + (browsing === first + i ? " current" : "");
    b.dataset.move = m;
    b.textContent = `${seatName(view.seats[p], p)}: ${humanMove(m)}`;
    b.addEventListener("click", () => browse(first + i));
    li.appendChild(b);
    log.appendChild(li);
  });
  log.start = first;
  if (browsing === null) log.scrollTop = log.scrollHeight;
  $("earlier").hidden = first <= 1;
  $("live").hidden = browsing === null;
  $("browsing").textContent = browsing === null ? "" :
    (browsing === 0 ? _("Showing the deal") : _("Showing the position after move {k} of {n}", { k: browsing, n: view.moves }));
}

async function historyUpTo(k) {
  if (view.moves === view.history.length) return view.history;
  if (fullHistory && fullHistory.length >= view.moves) return fullHistory;
  const res = await fetch(`/api/tables/${encodeURIComponent(tableId)}/moves`);
  if (!res.ok) throw new Error(_("The earlier moves could not be loaded."));
  const data = await res.json();
  fullHistory = data.moves.map(e => [e.player, e.move]);
  return fullHistory;
}

async function browse(k) {
  if (!view) return;
  k = Math.max(0, Math.min(view.moves, k));
  if (k === view.moves) { browsing = null; render(); return; }
  try {
    const history = await historyUpTo(k);
    browsing = k;
    browsedPositions = publicPositions(history.slice(0, view.moves), (p) => view.seats[p].team);
  } catch (e) { say(e.message, true); return; }
  render();
}
let browsedPositions = null;

function renderBrowsed() {
  const pos = browsedPositions[browsing];
  const history = fullHistory || view.history;
  const last = browsing > 0 ? history[browsing - 1] : null;
  board.render({ board: pos.board, sequences: pos.sequences }, last ? { player: last[0], move: last[1] } : null);
  $("board").classList.add("browsing");
}

function renderTargets() {
  board.clearMarks("target", "remove", "hinted", "cursor", "chosen");
  if (browsing !== null) return;
  $("board").classList.remove("browsing");
  if (hint && hint.cell) board.mark([hint.cell], "hinted");
  if (selected) {
    for (const m of movesOf(selected)) {
      if (m.cell) board.mark([m.cell], "target", ...(m.kind === "remove" ? ["remove"] : []));
    }
  }
  // The keyboard cursor only while it can be used: on your turn (never for spectators or after the end).
  if (cursor && mine()) board.mark([cursor], "cursor");
  if (choices) board.mark([choices[0].cell], "chosen");
}

// card: the card at place i of the hand (a click or its number key).
function selectCard(card, i) {
  if (!view || view.seat === null) return;
  const wasBrowsing = browsing !== null;
  if (wasBrowsing) {  // looking at an old position: a card is picked to play now, on the live board
    browsing = null;
    $("board").classList.remove("browsing");
  }
  // A second click on a card the player picked puts it back; a click on the card a hint picked
  // takes it (the player following the hint), so the hint never ends up unselected by its own card.
  if (selectedAt === i && !hintPicked) { selected = null; selectedAt = null; } else { selected = card; selectedAt = i; }
  hintPicked = false;
  choices = null;
  board.clearChoices();
  const targets = selected ? movesOf(selected).filter(m => m.cell) : [];
  if (targets.length && (!cursor || !targets.some(m => m.cell === cursor))) cursor = targets[0].cell;
  if (selected && mine()) {
    const ms = movesOf(selected);
    if (ms.some(m => m.kind === "trade")) say(_("{card} is a dead card: both its spaces are taken. Trade it.", { card: cardLabel(selected) }));
    else if (!ms.length) say(_("{card} cannot be played now.", { card: cardLabel(selected) }));
    else if (selected === "JH" || selected === "JS") say(_("One-eyed jack: click a chip to remove it."));
    else say(wasBrowsing ? _("Back to the live position: your turn.") : "");
  }
  render();
}

function clickCell(cell) {
  if (!view) return;
  if (browsing !== null) { browse(view.moves); return; }  // a click on an old position goes back to live
  if (view.over) return;
  if (!view.you.length) { say(_("You are watching: open a seat's link to play."), true); return; }
  cursor = cell;
  // the hinted cell clicked with no card picked: the hint's card is the one meant
  if (!selected && hint && hint.card && hint.cell === cell) { selected = hint.card; keepSelection(view); }
  if (!selected) { say(_("Pick a card from your hand first, then a space."), true); render(); return; }
  const here = movesOf(selected).filter(m => m.cell === cell);
  if (here.length > 1) {
    choices = here;
    board.showChoices(here, (m) => playMove(m.text));
    say(_("Pick which sequences count: click a numbered line or a button."));
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
  if (/^[1-9]$/.test(k)) { if (cards[+k - 1]) selectCard(cards[+k - 1], +k - 1); ev.preventDefault(); return; }
  if (browsing !== null || (!mine() && (k === "ArrowLeft" || k === "ArrowRight"))) {
    // Not your turn, or looking back: left and right step through the moves.
    if (k === "ArrowLeft") { browse((browsing ?? view.moves) - 1); ev.preventDefault(); return; }
    if (k === "ArrowRight" && browsing !== null) { browse(browsing + 1); ev.preventDefault(); return; }
    if (k === "Escape" || k === "End") { browse(view.moves); ev.preventDefault(); return; }
  }
  const arrows = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  if (arrows[k]) { moveCursor(...arrows[k]); ev.preventDefault(); return; }
  if ((k === "Enter" || k === " ") && cursor && ev.target.tagName !== "BUTTON") { clickCell(cursor); ev.preventDefault(); return; }
  if (k === "n") nextTarget();
  else if (k === "t" && !$("trade").hidden) $("trade").click();
  else if (k === "p" && !$("pass").hidden) $("pass").click();
  else if (k === "h" && !$("hint").disabled && !$("hint").hidden) $("hint").click();
  else if (k === "u" && !$("undo").hidden) $("undo").click();
  else if (k === "Escape") { selected = null; selectedAt = null; hintPicked = false; choices = null; board.clearChoices(); say(""); render(); }
});

// A button clicked with the mouse gives its focus back, so Enter keeps playing the board's cursor
// instead of pressing that button again (a button reached with Tab keeps focus, as usual).
function onButton(id, action) {
  $(id).addEventListener("click", (ev) => { if (ev.detail > 0) ev.currentTarget.blur(); action(ev); });
}
onButton("trade", () => selected && playMove(`trade ${selected}`));
onButton("pass", () => playMove("pass"));
onButton("hint", () => { say(_("Asking the computer...")); send({ type: "hint" }); });
onButton("undo", () => { say(""); send({ type: "undo" }); });
onButton("reveal", () => send({ type: "reveal" }));
// Resigning asks first, in the page's own dialog (Cancel has the focus: Enter never resigns by accident).
onButton("resign", () => $("resign-confirm").showModal());
onButton("resign-yes", () => { $("resign-confirm").close(); send({ type: "resign" }); });
onButton("resign-no", () => $("resign-confirm").close());
// Aborting too asks first: the game ends for everyone at the table (nobody loses, no rating changes).
onButton("abort", () => $("abort-confirm").showModal());
onButton("abort-yes", () => { $("abort-confirm").close(); send({ type: "abort" }); });
onButton("abort-no", () => $("abort-confirm").close());
onButton("live", () => browse(view.moves));
onButton("earlier", () => browse(0));
onButton("sound", () => { sound = !sound; localStorage.setItem("sequence-sound", sound ? "on" : "off"); renderSound(); if (sound) tone("turn"); });
onButton("gameover-close", () => $("gameover").close());
// A rematch is an offer: every other person at the table accepts or declines it, in this page's
// own dialog; the new table exists once all accepted, and a rated table's rematch is rated (their
// acceptance is the consent a rating needs). An offer ends when declined or withdrawn, after a
// minute, or when someone leaves (docs/web.md, "Rematch").
let offerUntil = null, offerTimer = null, offerNote = null;

function rematchLabel(v) {
  return v.rematch ? _("Go to the rematch") : v.rated ? _("Rematch (rated)") : _("Rematch");
}

function offerMine(o) { return view.you.some(p => o.accepted.includes(p)); }
function offerLeft() { return Math.max(0, Math.ceil((offerUntil - Date.now()) / 1000)); }

function offerButton(id, text, action, primary) {
  const b = document.createElement("button");
  b.type = "button";
  b.id = id;
  if (primary) b.className = "primary";
  b.textContent = text;
  b.addEventListener("click", action);
  return b;
}

// The banner's rematch controls (the end dialog's button does the same): offer, accept or decline
// the open offer, or wait for the others with a way to withdraw.
function offerControls(v) {
  const o = v.rematch_offer;
  if (v.rematch || !o) return [offerButton("banner-rematch", rematchLabel(v), rematch, true)];
  if (!offerMine(o)) {
    return [offerButton("banner-rematch", _("Accept the rematch"), rematch, true), " ",
            offerButton("banner-decline", _("Decline"), decline)];
  }
  const wait = document.createElement("span");
  wait.id = "rematch-waiting";
  wait.setAttribute("role", "status");
  wait.textContent = waitingText(o);
  return [wait, " ", offerButton("banner-decline", v.you.includes(o.by)
    ? _("Withdraw the offer") : _("Decline"), decline)];
}

function waitingText(o) {
  const names = o.waiting.map(p => seatName(view.seats[p], p)).join(", ");
  return _("Waiting for {names} to accept the rematch ({seconds} s).", { names, seconds: offerLeft() });
}

// The offer as the view says it: the dialog for a person still to answer, a countdown for everyone.
function renderOffer() {
  const v = view, o = v.over ? v.rematch_offer : null, dlg = $("rematch-offer");
  $("gameover-rematch").hidden = !v.rematch_allowed || Boolean(o && !v.rematch && offerMine(o));
  $("gameover-rematch").textContent = o && !v.rematch ? _("Accept the rematch") : rematchLabel(v);
  if (!o || v.rematch) {
    offerUntil = null;
    if (dlg.open) dlg.close();
    return;
  }
  offerUntil = Date.now() + o.expires_in * 1000;
  if (!offerTimer) offerTimer = setInterval(tickOffer, 1000);
  const maker = seatName(v.seats[o.by], o.by);
  $("rematch-offer-text").textContent = o.rated ? _("{name} offers a rated rematch: it changes your rating.", { name: maker })
    : _("{name} offers a rematch.", { name: maker });
  tickOffer();
  if (v.you.length && !offerMine(o) && !dlg.open) {
    if ($("gameover").open) $("gameover").close();
    dlg.showModal();
  }
}

function tickOffer() {
  if (offerUntil === null || !view || !view.rematch_offer) { clearInterval(offerTimer); offerTimer = null; return; }
  const left = offerLeft();
  $("rematch-offer-left").textContent = _("{seconds} s left to answer.", { seconds: left });
  const wait = $("rematch-waiting");
  if (wait) wait.textContent = waitingText(view.rematch_offer);
  if (left <= 0 && $("rematch-offer").open) $("rematch-offer").close();
}

// A frame about the offer: a new one clears the last ending's note; an ended one says how.
function onOfferFrame(msg) {
  const who = msg.seat === null || msg.seat === undefined ? "" : seatName(view.seats[msg.seat], msg.seat);
  offerNote = msg.offer ? null
    : msg.ended === "declined" ? _("{name} declined the rematch.", { name: who })
    : msg.ended === "withdrawn" ? _("{name} withdrew the rematch offer.", { name: who })
    : msg.ended === "left" ? _("{name} left the table: the rematch offer ended.", { name: who })
    : _("The rematch offer expired: nobody answered within a minute.");
}

// Answering closes the dialogs: the banner then shows where the offer stands.
function closeDialogs() { for (const id of ["rematch-offer", "gameover"]) if ($(id).open) $(id).close(); }
function rematch() { if (view.rematch) goToRematch(view.rematch); else { closeDialogs(); send({ type: "rematch" }); } }
function decline() { closeDialogs(); send({ type: "decline" }); }
onButton("rematch-accept", rematch);
onButton("rematch-decline", decline);
onButton("gameover-rematch", rematch);
renderSound();

board.load().then(() => { board.onCellClick = clickCell; connect(); });

// The chat: the players' room for a seat, the spectators' for a spectator (the server keeps them
// apart: spectators never reach players during play). Every message is shown as text, never HTML.
function onChatLog(msg) {
  const box = $("chatbox");
  box.hidden = false;
  $("chat-title").textContent = token ? _("Players' chat") : _("Spectators' chat");
  // the notice in the page's words, from what the frame says (the server's notice is English)
  $("chat-notice").textContent = !msg.enabled ? _("The chat is switched off on this server.")
    : token ? _("Everyone at the table reads the players' chat, opponents included: there is no private channel. Advising a teammate is table talk, which the rules do not allow.")
    : _("Spectators' chat: the players do not read it while the game goes on (they may once it is over), so nothing here can advise them.");
  chatName = msg.you;
  $("chatform").hidden = !msg.enabled;
  $("chatlog").replaceChildren();
  for (const m of msg.messages) addChat(m);
}

// A spectator's name in the chat: a guest's "Spectator N" as it is, an account's marked as a spectator's.
function spectatorName(name) {
  const m = /^Spectator (\d+)$/.exec(name);
  return m ? _("Spectator {n}", { n: m[1] }) : _("{name} (spectator)", { name });
}

// How many watch without a seat (the server tells the players' pages only).
function renderSpectators(n) {
  const el = $("spectators");
  el.hidden = !n;
  el.textContent = ngettext("{n} spectator", "{n} spectators", n);
}

function addChat(m) {
  if (muted.has(m.from)) return;
  const li = document.createElement("li");
  li.dataset.from = m.from;
  li.dataset.id = String(m.id);
  const who = document.createElement("strong");
  if (m.seat === null || m.seat === undefined) {
    who.textContent = (m.channel === "spectators" ? spectatorName(m.from) : defaultName(m.from)) + ": ";
  } else {  // a seat's message: its account links to its page, a guest is marked (club.nameNode)
    const seat = view && view.seats[m.seat];
    const account = m.account !== undefined ? m.account : seat ? seat.account : null;
    who.append(club.nameNode({ kind: "human", name: m.from, account }, m.seat), ": ");
  }
  const text = document.createElement("span");
  text.className = "chat-text";
  text.textContent = m.text;  // text only: markup in a message stays characters
  li.append(who, text);
  const mine = m.seat === null ? m.from === chatName : Boolean(view && view.you.includes(m.seat));
  if (!mine) {
    const mute = document.createElement("button");
    mute.type = "button";
    mute.className = "quiet small";
    mute.textContent = _("Mute");
    mute.setAttribute("aria-label", _("mute {name}", { name: m.from }));
    mute.addEventListener("click", () => {
      muted.add(m.from);
      for (const el of [...$("chatlog").children]) if (el.dataset.from === m.from) el.remove();
    });
    const report = document.createElement("button");
    report.type = "button";
    report.className = "quiet small report";
    report.textContent = _("Report");
    report.setAttribute("aria-label", _("report this message from {name}", { name: m.from }));
    report.addEventListener("click", () => send({ type: "report", message: m.id }));
    li.append(" ", mute, " ", report);
  }
  const log = $("chatlog");
  log.appendChild(li);
  while (log.children.length > 100) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

// The server took a report: the note stands beside the message reported (where the click was),
// and its Report button says it is done; a message no longer shown gets the note at the top.
function markReported(id) {
  const li = [...$("chatlog").children].find(el => el.dataset.id === String(id));
  if (!li) { say(_("Reported: the server's operator will read that message.")); return; }
  li.classList.add("reported");
  const button = li.querySelector("button.report");
  if (button) { button.disabled = true; button.textContent = _("Reported"); }
  if (!li.querySelector(".report-note")) {
    const note = document.createElement("span");
    note.className = "report-note";
    note.textContent = _("Reported: the server's operator will read that message.");
    li.append(" ", note);
  }
}

$("chatform").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const input = $("chattext"), text = input.value.trim();
  if (!text) return;
  send({ type: "chat", text });
  input.value = "";
});
