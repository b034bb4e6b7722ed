// The page's language (docs/i18n.md): the catalog the server put in the page (#i18n-catalog, from
// the same .po files as the Python's), the words every page shares, and the language menu.
// Messages carry {fields}; _() and ngettext() fill them in. Loaded first on every page.
"use strict";

const I18N = (() => {
  const el = document.getElementById("i18n-catalog");
  try { return JSON.parse(el.textContent); } catch (e) { return { lang: "en", plural: ["one", "other"], messages: {} }; }
})();
const LANG = I18N.lang || document.documentElement.lang || "en";

function fillFields(text, fields) {
  if (!fields) return text;
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in fields ? String(fields[k]) : m));
}

// A message in the page's language, its {fields} filled in.
function _(message, fields) {
  const t = I18N.messages[message];
  return fillFields(typeof t === "string" && t ? t : message, fields);
}

// The form for the count n ({n} filled in): the catalog lists the language's CLDR plural
// categories in the order of its forms, and Intl.PluralRules says which category n is in.
function ngettext(singular, plural, n, fields) {
  const t = I18N.messages[singular];
  let text = n === 1 ? singular : plural;
  if (Array.isArray(t)) {
    let index = -1;
    try { index = I18N.plural.indexOf(new Intl.PluralRules(LANG).select(n)); } catch (e) { /* the last form */ }
    if (index < 0) index = I18N.plural.length - 1;
    text = t[Math.min(index, t.length - 1)] || text;
  }
  return fillFields(text, { n: formatNumber(n), ...(fields || {}) });
}

// Sentences one after another: a space in English, none in Japanese.
function sentences(...parts) {
  return parts.filter(Boolean).reduce((a, b) => _("{first} {second}", { first: a, second: b }));
}

function formatNumber(x, options) {
  try { return new Intl.NumberFormat(LANG, options).format(x); } catch (e) { return String(x); }
}

function formatPercent(p) { return formatNumber(p, { style: "percent", maximumFractionDigits: 0 }); }

function formatDate(iso, withTime) {
  const d = new Date(iso);
  if (isNaN(d)) return iso;
  try {
    return new Intl.DateTimeFormat(LANG, withTime ? { dateStyle: "medium", timeStyle: "short" } : { dateStyle: "medium" }).format(d);
  } catch (e) { return iso; }
}

// What the page says about a refusal: the server's machine-readable code (the same in every
// language) in the page's words; a page passes its own sentence for a code where it knows more
// (the sign-up form's ValueError is a name or a password not allowed).
const ERROR_TEXT = {
  IllegalMoveError: () => _("The rules do not allow that move now."),
  AmbiguousMoveError: () => _("That move completes a sequence in more than one way: pick which chips count."),
  InvalidMoveError: () => _("That move is not written the way the game reads it."),
  NoSuchTableError: () => _("There is no such table (or it was removed)."),
  NoSuchPlayerError: () => _("There is no player by that name."),
  NoSuchChallengeError: () => _("There is no such challenge (or it closed a while ago)."),
  NeedsSeatError: () => _("Open your seat's link to do this."),
  NeedsAccountError: () => _("Log in to do this."),
  NotAllowedError: () => _("You may not do this here."),
  NotNowError: () => _("Not now: the game has moved on. Try again."),
  InvalidRequestError: () => _("Some of the choices do not fit together. Check them and try again."),
  TableExpiredError: () => _("This table was closed: nobody played it for a long time."),
  BadMessageError: () => _("The page and the server did not understand each other. Reload the page."),
  TooLargeError: () => _("That is too long."),
  TooSlowError: () => _("The connection was too slow. Reload the page."),
  BusyError: () => _("Too many requests at once: wait a moment and try again."),
  ServerFullError: () => _("The server is full right now: try again later."),
  UnsupportedError: () => _("This server cannot do that."),
  NotSavedError: () => _("The server could not save that: nothing changed. Try again later."),
  LoginError: () => _("Wrong name or password."),
  ValidationError: () => _("Some of the choices do not fit together. Check them and try again."),
  ValueError: () => _("Some of the choices do not fit together. Check them and try again."),
};

function errorText(body, status, overrides) {
  const code = body && body.error;
  if (overrides && code && overrides[code]) return overrides[code];
  if (code && ERROR_TEXT[code]) return ERROR_TEXT[code]();
  if (status === 404) return ERROR_TEXT.NoSuchTableError();
  if (status === 429) return ERROR_TEXT.BusyError();
  if (status >= 500) return ERROR_TEXT.ServerFullError();
  return _("The server refused that ({status}).", { status: status || "?" });
}

function unreachable() { return _("The server cannot be reached: is it running? Try again in a moment."); }

// Teams by colour (R1).
function teamName(t) { return [_("blue"), _("green"), _("red")][t]; }
function teamLabel(t) { return [_("team blue"), _("team green"), _("team red")][t]; }

// An AI's strength as a player reads it: "level 8", "easy"; a spec of agent options as it is.
function aiName(spec) {
  const m = /^level:(\d+)$/.exec(spec || "");
  if (m) return _("level {n}", { n: m[1] });
  const named = { random: _("random"), rules: _("rules"), easy: _("easy"), medium: _("medium"), hard: _("hard"), max: _("strongest") };
  return named[spec] || spec;
}

// A seat's name, built when it is shown: the server names an unnamed AI seat "AI 2 (level:8)"
// and an unnamed person "Player 2", "Guest" or "You" (records keep those names); here they read
// "Computer 2 (level 8)", "Player 2", ... in the page's language. A name a person chose stays.
// A person without an account is a guest and says so, so that a guest called "alice" never reads
// as the account alice (docs/club.md, "Names"; an account's name links to its page: club.nameNode).
function seatName(seat, p) {
  if (!seat) return _("seat {n}", { n: p + 1 });
  if (seat.kind === "ai" && (!seat.name || seat.name === `AI ${p + 1} (${seat.ai})`)) {
    return _("Computer {n} ({level})", { n: p + 1, level: aiName(seat.ai) });
  }
  const name = seat.name ? defaultName(seat.name) : _("seat {n}", { n: p + 1 });
  return seat.kind === "human" && seat.name && !seat.account && !seat.open ? _("{name} (guest)", { name }) : name;
}

// The server's default names of people ("Player 2", "Guest", "You") in the page's language.
function defaultName(name) {
  const m = /^Player (\d+)$/.exec(name);
  if (m) return _("Player {n}", { n: m[1] });
  return { Guest: _("Guest"), You: _("You") }[name] || name;
}

// A name of a finished game's record (GET .../replay "names"): the same default names.
function recordName(name, p, account, human) {
  const m = /^AI (\d+) \((.+)\)$/.exec(name || "");
  if (m && +m[1] === p + 1 && !human) return _("Computer {n} ({level})", { n: p + 1, level: aiName(m[2]) });
  return human && !account ? _("{name} (guest)", { name: defaultName(name || "") }) : defaultName(name || "");
}

// The language menu in the header: a guest's choice is kept in a cookie, an account's also on the
// account; the page is then served again in the new language.
(function languageMenu() {
  const menu = document.getElementById("lang-menu");
  if (!menu) return;
  menu.addEventListener("change", async () => {
    const lang = menu.value;
    document.cookie = `lang=${encodeURIComponent(lang)}; path=/; max-age=31536000; SameSite=Lax`;
    try {
      await fetch("/api/session/language", { method: "PUT", headers: { "Content-Type": "application/json" },
                                            body: JSON.stringify({ language: lang }) });
    } catch (e) { /* a guest's cookie is enough */ }
    location.reload();
  });
})();

// A time control in words: {kind, seconds, increment} of a game clock ("fischer", "bank") or a turn
// timer ("turn"); null: none.
function timeControlText(tc) {
  if (!tc) return _("no clock");
  if (tc.kind === "turn") return _("{s} s a turn", { s: tc.seconds });
  return tc.kind === "fischer" ? _("{m} min + {s} s", { m: tc.seconds / 60, s: tc.increment })
    : _("bank {m} min, +{s} s a turn", { m: tc.seconds / 60, s: tc.increment });
}
