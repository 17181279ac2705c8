#!/usr/bin/env bash
# The first evaluation on a fresh machine, beside PyTorch building the same
# file itself (issue 51): each round empties every cache (hone's and torch's
# extension folder), then times
#   hone:  `hone eval PROBLEM CANDIDATE --backend BACKEND` (build, checks,
#          timing and baselines: the whole first verdict), and
#   torch: a fresh python3 running CANDIDATE's module code (import torch,
#          load_inline's build, the import of the built module).
# The two alternate, hone first in odd rounds and torch first in even ones,
# and each starts only once the machine is quiet: what hone builds for later
# evaluations in the background (torch's precompiled header) has ended.
#
#   bench/cold_start.sh [--rounds N] [--bin DIR] PROBLEM CANDIDATE [BACKEND [EVAL FLAGS...]]
#
# Prints one line per run and the medians. BACKEND defaults to cpu; EVAL
# FLAGS go to hone eval (--no-time: the build and the checks alone). Both
# sides use one python3, the one that has torch (HONE_PYTHON, else
# scripts/torch-python), so that neither pays for searching PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3
bin=build
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
problem=$1
candidate=$2
backend=${3:-cpu}
shift $(($# < 3 ? $# : 3))
eval_flags=("$@")
py=${HONE_PYTHON:-$(scripts/torch-python)}
export HONE_PYTHON=$py
work=$(mktemp -d /tmp/hone-cold-start.XXXXXX)
trap 'rm -rf "$work"' EXIT

quiet() {  # no background header build of hone's, no compiler left running
  while pgrep -f 'hone-pch' > /dev/null || pgrep -x cc1plus > /dev/null; do sleep 1; done
}

seconds() {  # the wall seconds of a command, its output to $work/log
  local start end
  start=$(date +%s.%N)
  if ! "$@" > "$work/log" 2>&1; then
    echo "failed: $*" >&2
    tail -20 "$work/log" >&2
    exit 1
  fi
  end=$(date +%s.%N)
  awk "BEGIN { print $end - $start }"
}

run_hone() {
  rm -rf "$work/cache"
  HONE_CACHE="$work/cache" seconds "$bin/hone" eval "$problem" "$candidate" --backend "$backend" \
    --quiet ${eval_flags[@]+"${eval_flags[@]}"}
}

run_torch() {
  rm -rf "$work/torch-extensions"
  TORCH_EXTENSIONS_DIR="$work/torch-extensions" seconds "$py" -c \
    "import runpy, sys; runpy.run_path(sys.argv[1], run_name='cold_start')" "$candidate"
}

hone_times=()
torch_times=()
for round in $(seq 1 "$rounds"); do
  for side in $( [ $((round % 2)) = 1 ] && echo "hone torch" || echo "torch hone"); do
    quiet
    if [ "$side" = hone ]; then
      t=$(run_hone)
      hone_times+=("$t")
    else
      t=$(run_torch)
      torch_times+=("$t")
    fi
    printf 'round %d  %-5s %6.1f s\n' "$round" "$side" "$t"
  done
done
quiet
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
h=$(median "${hone_times[@]}")
t=$(median "${torch_times[@]}")
printf 'median of %d: hone eval %.1f s, torch load_inline %.1f s, hone - torch %+.1f s (%s, %s)\n' \
  "$rounds" "$h" "$t" "$(awk "BEGIN { print $h - $t }")" "$(basename "$candidate")" \
  "$backend${eval_flags[*]+ ${eval_flags[*]}}"
