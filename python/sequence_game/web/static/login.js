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
