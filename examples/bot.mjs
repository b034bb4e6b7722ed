// A bot in JavaScript (Node 18 or later, no packages) over the HTTP API of `sequence-game serve`
// (docs/web.md): it follows the table's event stream and plays one seat until the game ends. Its
// play is simple (a move that declares a sequence if there is one, else a random legal move); the
// point is the protocol:
//
//   GET  /api/tables/ID/stream   one JSON object a line (NDJSON): {"type": "state", "view": {...}}
//                                after every change (view.version, view.legal when the seat is to
//                                move, view.over, view.result), {"type": "presence", ...}; it ends
//                                after the finished game's state
//   POST /api/tables/ID/moves    {"move": "7H@d6", "version": N}: a stale version is refused (409)
//
// Usage: node examples/bot.mjs SERVER TABLE TOKEN
const [server, table, token] = process.argv.slice(2);
if (!token) {
  console.error("usage: node bot.mjs SERVER TABLE TOKEN");
  process.exit(2);
}
const api = `${server.replace(/\/$/, "")}/api/tables/${encodeURIComponent(table)}`;
const auth = { Authorization: `Bearer ${token}` };

async function play(view) {
  const legal = view.legal;
  const move = legal.find((m) => m.includes("=")) ?? legal[Math.floor(Math.random() * legal.length)];
  const r = await fetch(`${api}/moves`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({ move, version: view.version }),
  });
  if (r.status === 409) return false; // the table moved on: its new state comes on the stream
  if (!r.ok) throw new Error(`move ${move} refused (${r.status}): ${(await r.json()).detail}`);
  return true;
}

const stream = await fetch(`${api}/stream`, { headers: auth });
if (!stream.ok) throw new Error(`stream refused (${stream.status}): ${await stream.text()}`);
let buffer = "", moves = 0, acted = -1, last = null;
const decoder = new TextDecoder();
for await (const chunk of stream.body) {
  buffer += decoder.decode(chunk, { stream: true });
  let end;
  while ((end = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, end).trim();
    buffer = buffer.slice(end + 1);
    if (!line) continue; // a keep-alive
    const frame = JSON.parse(line);
    if (frame.type !== "state") continue;
    last = frame.view;
    // act once per version: a state queued before our move was played is stale
    if (!last.over && last.legal.length > 0 && last.version > acted) {
      acted = last.version;
      if (await play(last)) moves += 1;
    }
  }
}
if (!last || !last.over) throw new Error("the stream ended before the game did");
console.log(`game over after ${moves} moves of mine: ${JSON.stringify(last.result)}`);
