"use strict";
// The login and sign-up forms (docs/club.md): each posts JSON and, signed in, goes back to where
// the player came from (a path of this server only: nextPage).

// Where to go once signed in: `next` if it is a path on this server, else the lobby. The browser's
// own URL parser decides, with the rules it will navigate by: it drops tabs and newlines, reads
// "\" as "/" and "//host" as another host, so "/%09/evil.example/" is "//evil.example/" to it. The
// answer is the parsed absolute URL, which nothing reads again in another way.
function nextPage() {
  const next = new URLSearchParams(location.search).get("next");
  if (!next || next[0] !== "/") return location.origin + "/";
  let url;
  try {
    url = new URL(next, location.origin);
  } catch (e) {
    return location.origin + "/";
  }
  return url.origin === location.origin ? url.href : location.origin + "/";
}

// What a refusal of each form means (the server's codes: docs/club.md).
const LOGIN_ERRORS = { NeedsAccountError: _("Wrong name or password."), LoginError: _("Wrong name or password.") };
const SIGNUP_ERRORS = {
  ValueError: _("That name is taken or not allowed, or the password is too short: a name is 3 to 20 letters, digits, _ or -, and a password at least 8 characters."),
  ValidationError: _("That name is taken or not allowed, or the password is too short: a name is 3 to 20 letters, digits, _ or -, and a password at least 8 characters."),
};

function wire(formId, url, prefix, messages) {
  document.getElementById(formId).addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const err = document.getElementById(`${prefix}-error`);
    err.textContent = "";
    const body = { name: document.getElementById(`${prefix}-name`).value.trim(),
                   password: document.getElementById(`${prefix}-password`).value };
    let res, data;
    try {
      res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      data = await res.json();
    } catch (e) {
      err.textContent = _("The server cannot be reached: try again in a moment.");
      return;
    }
    if (!res.ok) { err.textContent = errorText(data, res.status, messages); return; }
    location.href = nextPage();
  });
}

wire("login", "/api/session", "login", LOGIN_ERRORS);
wire("signup", "/api/accounts", "signup", SIGNUP_ERRORS);

// A signed-in player changes the password here: the old one is asked for, and every other session
// of the account ends (this browser stays signed in).
const PASSWORD_ERRORS = {
  NeedsAccountError: _("The password you gave as your password now is wrong."),
  ValueError: _("A password is 8 to 256 characters."),
  ValidationError: _("A password is 8 to 256 characters."),
};
document.getElementById("password").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const err = document.getElementById("password-error"), done = document.getElementById("password-done");
  err.textContent = "";
  done.textContent = "";
  const body = { old: document.getElementById("password-old").value, new: document.getElementById("password-new").value };
  let res, data;
  try {
    res = await fetch("/api/session/password", { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    data = await res.json();
  } catch (e) {
    err.textContent = _("The server cannot be reached: try again in a moment.");
    return;
  }
  if (!res.ok) { err.textContent = errorText(data, res.status, PASSWORD_ERRORS); return; }
  document.getElementById("password").reset();
  done.textContent = _("Your password is changed; your other sessions have ended.");
});

club.load().then(me => {
  if (me && !me.accounts) document.getElementById("off").hidden = false;
  if (me && me.name) {
    document.getElementById("password-card").hidden = false;
    document.getElementById("password-name").value = me.name;
  }
});
