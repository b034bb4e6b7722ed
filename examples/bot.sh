#!/usr/bin/env bash
# A bot in shell over the HTTP API of `sequence-game serve` (docs/web.md), with curl and jq only:
# it plays one seat of a table until the game ends. Its play is simple (a move that declares a
# sequence if there is one, else a random legal move); the point is the protocol:
#
#   GET  /api/tables/ID          the table as the seat sees it (Authorization: Bearer TOKEN):
#                                .version, .legal (the seat's moves when it is to move), .over, .result
#   GET  /api/tables/ID?after_version=N&wait=25
#                                the same, once the table has changed since version N (a long-poll)
#   POST /api/tables/ID/moves    {"move": "7H@d6", "version": N}: a stale version is refused (409);
#                                the answer's .view is the table after the move
#
# Usage: examples/bot.sh SERVER TABLE TOKEN      e.g. examples/bot.sh http://127.0.0.1:8000 k3j9x2 4f0c...
set -euo pipefail
server=${1:?usage: bot.sh SERVER TABLE TOKEN}
table=${2:?usage: bot.sh SERVER TABLE TOKEN}
token=${3:?usage: bot.sh SERVER TABLE TOKEN}
api="$server/api/tables/$table"
auth="Authorization: Bearer $token"
reply_file=$(mktemp)
trap 'rm -f "$reply_file"' EXIT

moves=0
view=$(curl -sS --fail-with-body -H "$auth" "$api")
while :; do
  if [ "$(jq -r .over <<<"$view")" = true ]; then
    echo "game over after $moves moves of mine: $(jq -c .result <<<"$view")"
    exit 0
  fi
  count=$(jq '.legal | length' <<<"$view")
  version=$(jq .version <<<"$view")
  if [ "$count" -eq 0 ]; then   # not our turn: a long-poll answers at the next change (or after 25 s)
    view=$(curl -sS --fail-with-body -H "$auth" "$api?after_version=$version&wait=25")
    continue
  fi
  move=$(jq -r '[.legal[] | select(contains("="))][0] // empty' <<<"$view")
  if [ -z "$move" ]; then
    move=$(jq -r --argjson i $((RANDOM % count)) '.legal[$i]' <<<"$view")
  fi
  body=$(jq -nc --arg move "$move" --argjson version "$version" '{move: $move, version: $version}')
  status=$(curl -sS -o "$reply_file" -w '%{http_code}' -H "$auth" -H 'Content-Type: application/json' \
    -d "$body" "$api/moves")
  reply=$(cat "$reply_file")
  case $status in
    200) moves=$((moves + 1)); view=$(jq .view <<<"$reply") ;;   # the answer carries the new view
    409) view=$(curl -sS --fail-with-body -H "$auth" "$api") ;;   # the table moved on: read it again
    *) echo "move $move refused ($status): $(jq -r .detail <<<"$reply")" >&2; exit 1 ;;
  esac
done
