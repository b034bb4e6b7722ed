#!/usr/bin/env bash
# The fuzz campaign of fuzz/README.md: each target for its run count, one after another.
#   fuzz/campaign.sh [scale=1] [logdir=/tmp/sequence-fuzz-logs]
# scale multiplies every run count (0.01 for a smoke run, as .ci/run does); the inputs found go to
# logdir/corpus/<target>. Prints per target the
# inputs run, libFuzzer's coverage and corpus at the start and the end, and the findings. Exits
# non-zero if a target crashed the fuzzer or was not coverage-guided (no coverage counters, or no
# input added to the corpus: then libFuzzer is a random search, see fuzz/README.md).
set -uo pipefail
cd "$(dirname "$0")/.."
scale=${1:-1}
logs=${2:-/tmp/sequence-fuzz-logs}
mkdir -p "$logs"
declare -A runs=([parse]=400000 [from_dict_json]=200000 [core_position]=150000 [play]=150000 [from_dict]=150000
  [play_id]=100000 [record]=50000 [agent_spec]=100000)
failed=0
for target in parse from_dict_json core_position play from_dict play_id record agent_spec; do
  n=$(python -c "print(max(1, int(${runs[$target]} * $scale)))")
  log="$logs/$target.log"
  rm -rf "$logs/corpus/$target"  # each run starts from the seed corpus alone, so its numbers are its own
  SEQUENCE_FUZZ_WORK="$logs/corpus" python fuzz/fuzz.py "$target" -runs="$n" -seed=1 \
    -max_len=8192 -rss_limit_mb=4096 -print_final_stats=1 > "$log" 2>&1
  done_line=$(grep -E "^Done [0-9]+ runs" "$log" | tail -1)
  start=$(grep -m1 -E "INITED" "$log" | grep -oE "cov: [0-9]+|corp: [0-9]+" | tr '\n' ' ')
  end=$(grep -E "DONE" "$log" | tail -1 | grep -oE "cov: [0-9]+|corp: [0-9]+" | tr '\n' ' ')
  added=$(grep -oE "new_units_added: +[0-9]+" "$log" | grep -oE "[0-9]+$")
  findings=$(grep -c "^FINDING" "$log")
  echo "$target: ${done_line:-no Done line (crashed? see $log)}; start [${start:-no coverage}] end [${end:-no coverage}]; inputs added ${added:-0}; findings $findings"
  if [ -z "$done_line" ] || [ -z "$end" ] || [ "${added:-0}" -eq 0 ]; then
    echo "  $target was not coverage-guided or did not finish (see $log)"
    failed=1
  fi
done
exit $failed
