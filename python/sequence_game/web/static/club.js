"use strict";
// The club on every page (docs/club.md): who is signed in, in the header's #account; a finished
// rated game's rating changes. Names are always set as text, never as HTML.

// Why a game changed no rating, in the page's words: the server's reasons (English, docs/club.md) by
// their beginning; a reason this page does not know reads as the plain fact.
function whyText(why) {
  const reasons = [
    [/^these accounts already played/, _("these players have played too many rated games together in the last 24 hours")],
    [/^the table was created casual/, _("the table was created casual")],
    [/^not every seat was an account/, _("not every seat was an account")],
    [/^an account held two seats/, _("one account held two seats")],
    [/^a seat never moved/, _("a seat never moved (an aborted game)")],
    [/^the game was aborted before/, _("the game was aborted before every player's first move")],
    [/^the game was aborted: a player did not/, _("the game was aborted: a player did not make a first move in time")],
    [/^an account of the game no longer exists/, _("an account of the game no longer exists")],
    [/^an account of the game is disabled/, _("an account of the game is disabled by the server's operator")],
  ];
  const hit = reasons.find(([re]) => re.test(why || ""));
  return hit ? hit[1] : _("not rated");
}

const club = {
  me: null,  // GET /api/session: {accounts, name, rating, provisional}

  async load() {
    try {
      const res = await fetch("/api/session");
      club.me = res.ok ? await res.json() : null;
    } catch (e) { club.me = null; }
    club.renderBar();
    document.dispatchEvent(new CustomEvent("club:me"));  // the lobby offers rated seeks to an account
    return club.me;
  },

  rating(r, provisional) { return `${r}${provisional ? "?" : ""}`; },

  playerLink(name) {
    const a = document.createElement("a");
    a.href = `/players/${encodeURIComponent(name)}`;
    a.textContent = name;
    return a;
  },

  // A seat's (or a seek's poster's) name as a node (docs/club.md, "Names"): an account's links to
  // its player page; anyone else's is seatName's text, a guest's with its mark "(guest)".
  nameNode(seat, p) {
    if (seat.account) {
      const a = club.playerLink(seat.name);
      a.className = "account-name";
      return a;
    }
    const span = document.createElement("span");
    span.textContent = seatName(seat, p);
    if (seat.kind !== "ai") span.className = "guest-name";
    return span;
  },

  renderBar() {
    const bar = document.getElementById("account");
    if (!bar) return;
    bar.replaceChildren();
    const me = club.me;
    if (!me || !me.accounts) return;
    if (me.name) {
      bar.append(club.playerLink(me.name), ` (${club.rating(me.rating, me.provisional)}) `);
      const out = document.createElement("button");
      out.type = "button";
      out.className = "quiet";
      out.id = "logout";
      out.textContent = _("Log out");
      out.addEventListener("click", async () => {
        await fetch("/api/session", { method: "DELETE" });
        location.reload();
      });
      const password = document.createElement("a");
      password.href = "/login#password-card";
      password.id = "password-link";
      password.textContent = _("Change password");
      bar.append(password, " ", out);
    } else {
      const a = document.createElement("a");
      // the path only: a join link's #seat= token must never ride in a URL the server (or a proxy) logs
      a.href = `/login?next=${encodeURIComponent(location.pathname)}`;
      a.id = "login-link";
      a.textContent = _("Log in or sign up");
      bar.append(a);
    }
  },

  // The rating changes of a finished table into the list `ul` (hidden while there are none).
  async showRatings(tableId, ul) {
    let rows = [];
    try {
      const res = await fetch(`/api/tables/${encodeURIComponent(tableId)}/ratings`);
      if (res.ok) rows = await res.json();
    } catch (e) { rows = []; }
    ul.replaceChildren();
    for (const r of rows) {
      const li = document.createElement("li");
      li.className = "rating-change";
      const sign = r.change > 0 ? "+" : r.change < 0 ? "\u2212" : "\u00b1";
      li.append(club.playerLink(r.name), `: ${r.before} \u2192 ${club.rating(r.after, r.provisional)} ` +
                `(${sign}${Math.abs(r.change)})` + (r.counted ? "" : " - " + _("not counted: {why}", { why: whyText(r.why) })));
      ul.appendChild(li);
    }
    ul.hidden = rows.length === 0;
    if (rows.length && club.me && club.me.name) club.load();  // the header's rating, after the change
    return rows;
  },
};

club.load();
