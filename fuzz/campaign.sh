#!/usr/bin/env bash
# The fuzz campaign of fuzz/README.md: each target for its run count, one after another.
#   fuzz/campaign.sh [scale=1] [logdir=/tmp/sequence-fuzz-logs]
# scale multiplies every run count (0.01 for a smoke run). Prints "target runs seconds findings".
set -uo pipefail
cd "$(dirname "$0")/.."
scale=${1:-1}
logs=${2:-/tmp/sequence-fuzz-logs}
mkdir -p "$logs"
declare -A runs=([parse]=400000 [from_dict_json]=200000 [core_position]=150000 [play]=150000 [from_dict]=150000
  [play_id]=100000 [record]=50000 [agent_spec]=100000)
for target in parse from_dict_json core_position play from_dict play_id record agent_spec; do
  n=$(python -c "print(max(1, int(${runs[$target]} * $scale)))")
  python fuzz/fuzz.py "$target" -runs="$n" -seed=1 -max_len=8192 -rss_limit_mb=4096 -print_final_stats=1 \
    > "$logs/$target.log" 2>&1
  done_line=$(grep -E "^Done [0-9]+ runs" "$logs/$target.log" | tail -1)
  findings=$(grep -c "^FINDING" "$logs/$target.log")
  echo "$target: ${done_line:-no Done line (crashed? see $logs/$target.log)}, findings $findings"
done
