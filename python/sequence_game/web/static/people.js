"use strict";
// People to play with (docs/club.md): the #people card of the lobby and the player pages, for a
// signed-in account: challenges to you (accept, decline), your challenges (withdraw; once one is
// accepted this page goes to your seat), and the players you follow with where they play; on the
// table page, the #challenge-notice of challenges to you (the same items). It asks GET /api/people
// every few seconds. Every name is set as text, never as HTML.

const people = {
  EVERY: 4000,  // ms between two questions
  MINE: "sequence-my-challenges",  // the challenges this browser made: it goes to the table of one accepted
  data: null,
  shownKey: null,
  timer: null,

  el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  },

  button(text, onClick, cls) {
    const b = people.el("button", text, cls);
    b.type = "button";
    b.addEventListener("click", onClick);
    return b;
  },

  // a challenge's game in words: players, clock, rated or casual
  game(c) {
    const parts = [ngettext("{n} player", "{n} players", c.players), people.clock(c), c.rated ? _("rated") : _("casual")];
    return parts.join(", ");
  },

  clock(c) {
    if (c.clock) return c.clock.kind === "fischer" ? _("{m} min + {s} s", { m: c.clock.seconds / 60, s: c.clock.increment })
      : _("bank {m} min, +{s} s a turn", { m: c.clock.seconds / 60, s: c.clock.increment });
    return c.turn_seconds ? _("{s} s a turn", { s: c.turn_seconds }) : _("no clock");
  },

  async send(method, url, body, overrides) {
    let res;
    try {
      res = await fetch(url, { method, headers: body ? { "Content-Type": "application/json" } : {},
                               body: body ? JSON.stringify(body) : undefined });
    } catch (e) { throw new Error(unreachable()); }
    const data = res.status === 204 ? {} : await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(errorText(data, res.status, overrides));
    return data;
  },

  mine() {
    try { return JSON.parse(sessionStorage.getItem(people.MINE) || "[]"); } catch (e) { return []; }
  },

  remember(id) {
    sessionStorage.setItem(people.MINE, JSON.stringify([...people.mine(), id].slice(-20)));
  },

  say(text) {
    const p = document.getElementById("people-error");
    if (p) p.textContent = text;
  },

  async act(method, url, body) {
    people.say("");
    try {
      const data = await people.send(method, url, body);
      await people.load();
      return data;
    } catch (e) { people.say(e.message); return null; }
  },

  watchLink(t) {
    const a = people.el("a", _("watch"));
    a.href = `/table/${encodeURIComponent(t.table)}`;
    a.setAttribute("aria-label", _("watch the game of {players}", { players: t.players.filter(Boolean).join(", ") }));
    return a;
  },

  // "playing: watch" / "online" / "offline"
  status(p) {
    const span = people.el("span");
    if (p.playing.length) {
      span.append(_("playing") + " ");
      p.playing.forEach((t, i) => { if (i) span.append(", "); span.append(people.watchLink(t)); });
    } else span.textContent = p.online ? _("online") : _("offline");
    span.className = p.playing.length || p.online ? "presence-on" : "dim";
    return span;
  },

  // the card's parts, made once (the same on every page that has a #people section)
  build(card) {
    const h2 = people.el("h2", _("People to play with"));
    h2.id = "people-title";
    const error = people.el("p", "", "error");
    error.id = "people-error";
    error.setAttribute("role", "alert");
    const list = id => { const ul = people.el("ul", undefined, "challenges"); ul.id = id; ul.setAttribute("aria-live", "polite"); return ul; };
    const table = people.el("table", undefined, "list");
    const head = people.el("tr");
    for (const t of [_("player"), _("rating"), _("now")]) head.appendChild(people.el("th", t));
    const thead = people.el("thead");
    thead.appendChild(head);
    const body = people.el("tbody");
    body.id = "following";
    table.append(thead, body);
    card.append(h2, error, people.el("h3", _("Challenges to you")), list("challenges-in"),
                people.el("h3", _("Your challenges")), list("challenges-out"), people.el("h3", _("Players you follow")), table);
  },

  // one challenge to you: who, which game, Accept (to the new table) and Decline
  incomingItem(c) {
    const li = people.el("li");
    li.className = "challenge";
    li.append(club.playerLink(c.maker), " " + _("challenges you: {game}", { game: people.game(c) }) + " ");
    const accept = people.button(_("Accept"), async () => {
      accept.disabled = true;
      const seat = await people.act("POST", `/api/challenges/${encodeURIComponent(c.id)}/accept`);
      if (seat && seat.url) location.href = seat.url;
      accept.disabled = false;
    }, "primary");
    accept.setAttribute("aria-label", _("Accept the challenge of {name}", { name: c.maker }));
    const decline = people.button(_("Decline"), () => people.act("POST", `/api/challenges/${encodeURIComponent(c.id)}/decline`));
    decline.setAttribute("aria-label", _("Decline the challenge of {name}", { name: c.maker }));
    li.append(accept, " ", decline);
    return li;
  },

  // The table page's notice: shown while a challenge to you is open, hidden otherwise.
  renderNotice() {
    const box = document.getElementById("challenge-notice");
    if (!box) return;
    const incoming = people.data ? people.data.challenges.incoming : [];
    const key = JSON.stringify(incoming, (k, v) => (k === "expires_in" ? undefined : v));
    if (key === box.dataset.shown) return;
    box.dataset.shown = key;
    box.hidden = !incoming.length;
    document.getElementById("challenge-list").replaceChildren(...incoming.map(people.incomingItem));
  },

  render() {
    people.renderNotice();
    const card = document.getElementById("people");
    const d = people.data;
    if (!card) return;
    card.hidden = !d;
    if (!d) return;
    if (!card.firstChild) people.build(card);
    // the lists are live regions: drawn again only when something a person reads changed
    const key = JSON.stringify(d, (k, v) => (k === "expires_in" ? undefined : v));
    if (key === people.shownKey) return;
    people.shownKey = key;
    const incoming = document.getElementById("challenges-in");
    incoming.replaceChildren(...(d.challenges.incoming.length ? d.challenges.incoming.map(people.incomingItem)
      : [people.el("li", _("no challenge to you"), "dim")]));
    const outgoing = document.getElementById("challenges-out");
    const mine = people.mine();
    outgoing.replaceChildren(...(d.challenges.outgoing.length ? d.challenges.outgoing.map(c => {
      const li = people.el("li");
      li.className = "challenge";
      li.append(_("to") + " ", club.playerLink(c.target), ": " + people.game(c) + " - ");
      const state = { open: _("waiting for an answer"), accepting: _("accepted: the table is being made"),
                      accepted: _("accepted"), declined: _("declined"), withdrawn: _("withdrawn"),
                      expired: _("expired") }[c.status];
      li.append(people.el("span", state, "challenge-status"));
      if (c.status === "open") {
        const w = people.button(_("Withdraw"), () => people.act("DELETE", `/api/challenges/${encodeURIComponent(c.id)}`), "quiet");
        w.setAttribute("aria-label", _("Withdraw your challenge to {name}", { name: c.target }));
        li.append(" ", w);
      }
      if (c.status === "accepted" && c.seat) {
        const a = people.el("a", _("go to your seat"));
        a.href = c.seat.url;
        li.append(" ", a);
        // the page that made it goes to the table once (a reload of the lobby later does not)
        if (mine.includes(c.id)) {
          sessionStorage.setItem(people.MINE, JSON.stringify(mine.filter(x => x !== c.id)));
          location.href = c.seat.url;
        }
      }
      return li;
    }) : [people.el("li", _("no challenge from you"), "dim")]));
    document.getElementById("following").replaceChildren(...(d.following.length ? d.following.map(p => {
      const row = people.el("tr");
      for (const content of [club.playerLink(p.name), club.rating(p.rating, p.provisional), people.status(p)]) {
        const td = people.el("td");
        td.append(content);
        row.appendChild(td);
      }
      return row;
    }) : [(() => { const r = people.el("tr"); const td = people.el("td", _("you follow nobody yet: follow players from their pages")); td.colSpan = 3; r.appendChild(td); return r; })()]));
    document.dispatchEvent(new CustomEvent("people:data"));
  },

  async load() {
    if (!(club.me && club.me.name)) { people.data = null; people.render(); return; }
    try {
      const res = await fetch("/api/people");
      people.data = res.ok ? await res.json() : null;
    } catch (e) { /* the next question tries again */ }
    people.render();
  },

  start() {
    if (people.timer !== null) return;
    people.load();
    people.timer = setInterval(() => { if (!document.hidden) people.load(); }, people.EVERY);
  },
};

document.addEventListener("club:me", () => { if (club.me && club.me.name) people.start(); else people.render(); });
