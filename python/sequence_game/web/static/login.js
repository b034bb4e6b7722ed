"use strict";
// The login and sign-up forms (docs/club.md): each posts JSON and, signed in, goes back to where
// the player came from (a path of this site only).

function nextPage() {
  const next = new URLSearchParams(location.search).get("next") || "/";
  // a path of this site only ("//host" and "/\host" would leave it)
  return /^\/(?![\/\\])/.test(next) ? next : "/";
}

function wire(formId, url, prefix) {
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
      err.textContent = "The server cannot be reached: try again in a moment.";
      return;
    }
    if (!res.ok) { err.textContent = data.detail; return; }
    location.href = nextPage();
  });
}

wire("login", "/api/session", "login");
wire("signup", "/api/accounts", "signup");
club.load().then(me => { if (me && !me.accounts) document.getElementById("off").hidden = false; });
