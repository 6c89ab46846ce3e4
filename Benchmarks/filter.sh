#!/usr/bin/env bash
# Display-filter speed: `bleinspect read -Y EXPR --count` against `tshark -r FILE -Y EXPR` on the
# same capture, in the same run, runs alternating. Reports each tool's median seconds and the ratio.
#   Benchmarks/filter.sh [FRAMES] [RUNS] [EXPR...]
# Defaults: 1000000 frames, 3 runs, three typical expressions. Needs a release build and tshark.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/bleinspect
[ -x "$bin" ] || { echo "build first: scripts/setup" >&2; exit 1; }
command -v tshark >/dev/null || { echo "tshark is not installed" >&2; exit 1; }
frames=${1:-1000000}
runs=${2:-3}
shift $(( $# > 2 ? 2 : $# )) || true
exprs=("$@")
[ ${#exprs[@]} -gt 0 ] || exprs=('btatt.opcode == 0x1b' 'btl2cap.cmd_code == 0x16' 'bthci_evt.le_meta_subevent == 0x02 && bthci_evt.rssi < -40')
work=${BENCH_DIR:-bench-out}
mkdir -p "$work"
cap="$work/bench-$frames.btsnoop"
[ -f "$cap" ] || python3 Benchmarks/make_capture.py "$cap" "$frames" >/dev/null

seconds() { /usr/bin/time -f "%e" -o "$work/t.txt" "$@" >"$work/out.txt" 2>/dev/null; cat "$work/t.txt"; }
median() { printf "%s\n" "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf "%-55s %8s %8s %10s %8s %8s\n" expression matches ours tshark tshark-hits ratio
for e in "${exprs[@]}"; do
    ours=(); theirs=()
    for _ in $(seq "$runs"); do
        ours+=("$(seconds "$bin" read -Y "$e" --count "$cap")"); hits=$(cat "$work/out.txt")
        theirs+=("$(seconds tshark -r "$cap" -Y "$e")"); their_hits=$(wc -l <"$work/out.txt")
    done
    o=$(median "${ours[@]}"); t=$(median "${theirs[@]}")
    ratio=$(awk -v t="$t" -v o="$o" 'BEGIN { printf "%.1f", (o > 0 ? t / o : 0) }')
    printf "%-55s %8s %8s %10s %8s %7sx\n" "$e" "$hits" "$o" "$t" "$their_hits" "$ratio"
done
