#!/usr/bin/env bash
# The cluster how-to of docs/scale.md ("A Ray cluster: how to run it for real") followed on one
# Linux machine, with three network namespaces standing for three hosts, each with its own address
# on a private network (a bridge in a fourth namespace: the machine's own network is not touched):
#
#   head     10.77.0.1   ray start --head --port=6379 --num-cpus=0; the match is submitted here
#   worker1  10.77.0.2   ray start --address=10.77.0.1:6379 --num-cpus=1
#   worker2  10.77.0.3   ray start --address=10.77.0.1:6379 --num-cpus=1
#
# Every node gets the same environment a host would need: the package importable (PYTHONPATH here,
# or sequence-game installed), and Ray's token authentication (RAY_AUTH_MODE=token and the
# cluster's token, RAY_AUTH_TOKEN; a fresh token per run). The head runs
# `sequence-game arena ... --ray 10.77.0.1:6379`, every process of worker1 is killed with SIGKILL
# once it has played a game and KILL_AFTER games are done, and the script checks that the match
# completes with every game exactly once, that both worker nodes played games, and that the games
# equal those of the same match on this machine without Ray. It prints the games per node.
#
# Run as root (network namespaces), with Ray and sequence-game importable by $PYTHON:
#
#   sudo PYTHON=/path/to/venv/bin/python PYTHONPATH=/path/to/sequence-game/python \
#     nice -n 10 examples/cluster/netns_cluster.sh
#
# Environment: PYTHON (default python3), PYTHONPATH (given to every node and the driver; leave it
# empty when sequence-game is installed), GAMES (24), AGENTS ("mcts:iters=8000 greedy", about half
# a second of CPU a game), SEED (3), KILL_AFTER (4), FIREWALL (1: each host drops every TCP
# connection from the others but to the ports docs/scale.md says to open, which the nodes are
# then started on; needs nftables' `nft`). Needs iproute2 (`ip`). Everything it starts
# (namespaces, Ray's processes, a temporary directory) is removed on exit; the logs are kept when
# a check fails. Exit status 0 when every check passes.
set -euo pipefail

PYTHON=${PYTHON:-python3}
GAMES=${GAMES:-24}
AGENTS=${AGENTS:-"mcts:iters=8000 greedy"}
SEED=${SEED:-3}
KILL_AFTER=${KILL_AFTER:-4}
FIREWALL=${FIREWALL:-0}
NET=10.77.0
PORT=6379
read -r -a agents <<<"$AGENTS"

[ "$(id -u)" -eq 0 ] || { echo "netns_cluster.sh: run as root (it creates network namespaces)" >&2; exit 2; }
command -v ip >/dev/null || { echo "netns_cluster.sh: needs iproute2 (ip)" >&2; exit 2; }
[ "$FIREWALL" = 0 ] || command -v nft >/dev/null || { echo "netns_cluster.sh: FIREWALL=1 needs nftables (nft)" >&2; exit 2; }
"$PYTHON" -c "import ray, sequence_game" || {
  echo "netns_cluster.sh: $PYTHON cannot import ray and sequence_game (set PYTHON and PYTHONPATH)" >&2; exit 2; }

tag=sg$$                                  # namespace names of this run: sg<pid>-head, ...
nodes=(head worker1 worker2)
work=$(mktemp -d /tmp/sg-netns.XXXXXX)    # each node's Ray temp dir, the results, the logs
keep=0
driver=

cleanup() {
  local status=$? ns pids round
  set +e
  [ -n "$driver" ] && { kill -9 "$driver"; wait "$driver"; } 2>/dev/null
  for ns in "${nodes[@]}"; do             # every process in a node's namespace is one Ray started here
    for round in 1 2 3 4 5; do
      pids=$(ip netns pids "$tag-$ns" 2>/dev/null)
      [ -z "$pids" ] && break
      kill -9 $pids 2>/dev/null
      sleep 0.2
    done
  done
  for ns in "${nodes[@]}" net; do ip netns del "$tag-$ns" 2>/dev/null; done
  if [ "$status" -ne 0 ] || [ "$keep" -eq 1 ]; then
    echo "netns_cluster.sh: failed; logs and results kept in $work" >&2
    [ "$status" -ne 0 ] || status=1
  else
    rm -rf "$work"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() { echo "netns_cluster.sh: $*" >&2; keep=1; exit 1; }
elapsed() { "$PYTHON" -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$1"; }

# The network: a bridge in namespace "net", one veth pair per host, loopback up everywhere.
ip netns add "$tag-net"
ip -n "$tag-net" link set lo up
ip -n "$tag-net" link add br0 type bridge
ip -n "$tag-net" link set br0 up
for i in 0 1 2; do
  ns=$tag-${nodes[$i]}
  ip netns add "$ns"
  ip link add eth0 netns "$ns" type veth peer name "port$i" netns "$tag-net"
  ip -n "$tag-net" link set "port$i" master br0 up
  ip -n "$ns" addr add "$NET.$((i + 1))/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
done

# With FIREWALL=1, every Ray process binds a fixed port and each host accepts from the others only
# those: the head's GCS (6379), and on every node its raylet (node manager and object manager) and
# its workers' range, the driver's included. Connections within a host (lo) stay open.
ports=()
if [ "$FIREWALL" != 0 ]; then
  ports=(--node-manager-port=6380 --object-manager-port=6381 --min-worker-port=10002 --max-worker-port=10101)
  for i in 0 1 2; do
    open="6380, 6381, 10002-10101"
    [ "$i" -eq 0 ] && open="$PORT, $open"
    ip netns exec "$tag-${nodes[$i]}" nft -f - <<EOF
table inet cluster {
  chain input {
    type filter hook input priority 0; policy drop;
    iif lo accept
    ct state established,related accept
    ip saddr $NET.0/24 tcp dport { $open } accept
  }
}
EOF
  done
fi

# What every host of the cluster shares: the same Python, Ray and sequence-game, the package
# importable by the workers Ray starts (they inherit the environment of `ray start`), and the token.
token=$("$PYTHON" -c "import secrets; print(secrets.token_hex(32))")
on() {  # on NODE COMMAND...: run COMMAND on that "host", with the cluster's environment
  local ns=$tag-$1; shift
  ip netns exec "$ns" env -u RAY_ADDRESS PYTHONPATH="${PYTHONPATH:-}" RAY_AUTH_MODE=token \
    RAY_AUTH_TOKEN="$token" RAY_USAGE_STATS_ENABLED=0 "$@"
}
ray_cli() {  # `ray start` waits for ever for a head it cannot reach: 120 s here
  local node=$1; shift
  on "$node" timeout 120 "$PYTHON" -m ray.scripts.scripts "$@"
}

# docs/scale.md step 2, with each host's address given (--node-ip-address) and its own temp dir
# (on separate hosts /tmp/ray is not shared); a small object store, as the three share /dev/shm.
t0=$(date +%s.%N)
ray_cli head start --head --port=$PORT --num-cpus=0 --node-ip-address="$NET.1" --include-dashboard=false "${ports[@]}" \
  --temp-dir="$work/head" --object-store-memory=200000000 --disable-usage-stats >"$work/head.log" 2>&1 \
  || { cat "$work/head.log" >&2; fail "ray start --head failed"; }
for i in 1 2; do
  ray_cli "worker$i" start --address="$NET.1:$PORT" --num-cpus=1 --node-ip-address="$NET.$((i + 1))" "${ports[@]}" \
    --temp-dir="$work/worker$i" --object-store-memory=200000000 --disable-usage-stats >"$work/worker$i.log" 2>&1 \
    || { cat "$work/worker$i.log" >&2; fail "ray start on worker$i failed"; }
done

# The nodes as the head sees them (step 4's `ray status`, with the node ids the results name).
on head "$PYTHON" - "$NET.1:$PORT" >"$work/nodes.txt" <<'EOF'
import sys, time
import ray
ray.init(address=sys.argv[1], log_to_driver=False, logging_level="error")
deadline = time.monotonic() + 60
while sum(n["Alive"] for n in ray.nodes()) < 3 or ray.cluster_resources().get("CPU", 0) < 2:
    if time.monotonic() > deadline:
        sys.exit(f"the cluster has {ray.nodes()}")
    time.sleep(0.5)
for n in ray.nodes():
    print(n["NodeManagerAddress"], n["NodeID"], int(n["Resources"].get("CPU", 0)))
EOF
echo "cluster up in $(elapsed "$t0") s: node address, id, CPUs"
sed 's/^/  /' "$work/nodes.txt"
victim_ip=$NET.2
victim=$(awk -v ip="$victim_ip" '$1 == ip {print $2}' "$work/nodes.txt")
[ -n "$victim" ] || fail "worker1 ($victim_ip) did not join the cluster"

# docs/scale.md step 3: the match, submitted on the head, its results file written there.
results=$work/match.jsonl
echo "arena ${agents[*]} --games $GAMES --seed $SEED --ray $NET.1:$PORT (on the head)"
t0=$(date +%s.%N)
on head "$PYTHON" -m sequence_game arena "${agents[@]}" --games "$GAMES" --seed "$SEED" --no-progress \
  --ray "$NET.1:$PORT" --results "$results" >"$work/driver.log" 2>&1 &
driver=$!

# A worker lost: every process of worker1 killed once it has played a game and KILL_AFTER are done.
count() {  # games in the results file, and those of worker1
  "$PYTHON" - "$results" "$victim" <<'EOF'
import json, sys
try:
    lines = [json.loads(x) for x in open(sys.argv[1]).read().splitlines()[1:] if x.endswith("}")]
except OSError:
    lines = []
print(len(lines), sum(g["node"] == sys.argv[2] for g in lines))
EOF
}
while :; do
  read -r done_games victim_games < <(count)
  [ "$done_games" -ge "$KILL_AFTER" ] && [ "$victim_games" -ge 1 ] && break
  kill -0 "$driver" 2>/dev/null || { cat "$work/driver.log" >&2; fail "the match ended before worker1 was killed"; }
  [ "$(elapsed "$t0" | cut -d. -f1)" -lt 300 ] || fail "no game from worker1 after 300 s"
  sleep 0.3
done
ip netns pids "$tag-worker1" | xargs -r kill -9
killed_at=$(elapsed "$t0")
echo "killed every process of worker1 ($victim_ip) at $killed_at s, with $done_games of $GAMES games done"

status=0
wait "$driver" || status=$?
driver=
wall=$(elapsed "$t0")
[ "$status" -eq 0 ] || { tail -n 40 "$work/driver.log" >&2; fail "the match failed (exit status $status)"; }
[ -z "$(ip netns pids "$tag-worker1")" ] || fail "worker1 still has processes"
echo "match done in $wall s"

# The same match on this machine without Ray, to compare game by game.
"$PYTHON" -m sequence_game arena "${agents[@]}" --games "$GAMES" --seed "$SEED" --no-progress --workers 2 \
  --results "$work/local.jsonl" >"$work/local.log" 2>&1 || { cat "$work/local.log" >&2; fail "the local match failed"; }

"$PYTHON" - "$results" "$work/local.jsonl" "$work/nodes.txt" "$victim" "$GAMES" <<'EOF' || fail "a check failed"
import collections, datetime, json, sys
from sequence_game.arena import compare, summary
path, local, nodes_file, victim, games = sys.argv[1:6]
address = dict(line.split()[1::-1] for line in open(nodes_file))  # node id -> address
head = next(n for n, ip in address.items() if ip.endswith(".1"))
lines = [json.loads(x) for x in open(path).read().splitlines()[1:]]
indices = sorted(g["index"] for g in lines)
assert indices == list(range(int(games))), f"games played {indices}, not each of 0..{int(games) - 1} once"
per_node = collections.Counter(g["node"] for g in lines)
assert set(per_node) <= set(address) - {head}, f"games on unknown nodes or the head: {per_node}"
assert all(per_node[n] >= 1 for n in address if n != head), f"a worker node played no game: {per_node}"
assert summary(path).games_per_node == dict(per_node)
assert compare(local, path).difference == 0, str(compare(local, path))
moves = {g["index"]: g["moves"] for g in lines}
local_moves = {g["index"]: g["moves"] for g in map(json.loads, open(local).read().splitlines()[1:])}
assert moves == local_moves, "the moves differ from the match without Ray"
print("games per node:")
for n in sorted(address, key=address.get):
    note = " (killed mid-run)" if n == victim else " (head: schedules only)" if n == head else ""
    print(f"  {address[n]:<10} {n[:12]}  {per_node.get(n, 0):>3}{note}")
print(f"every game once ({len(lines)} of {games}); the same games as without Ray, move by move")
finished = sorted(datetime.datetime.fromisoformat(g["finished"].replace("Z", "+00:00")) for g in lines)
gap = max((b - a).total_seconds() for a, b in zip(finished, finished[1:]))
print(f"longest wait between two finished games: {gap:.1f} s (Ray declaring the killed node dead)")
EOF
