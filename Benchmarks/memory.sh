#!/usr/bin/env bash
# Peak resident memory and wall time of `bleinspect read` on large captures, to show that the
# capture core streams: memory must not grow with the number of frames.
#   Benchmarks/memory.sh [FRAMES...]     (default: 1000000 10000000)
# Needs a release build (scripts/setup) and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/bleinspect
[ -x "$bin" ] || { echo "build first: scripts/setup" >&2; exit 1; }
work=${BENCH_DIR:-bench-out}
mkdir -p "$work"
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1000000 10000000)
printf "%-10s %-28s %10s %12s\n" frames command seconds "peak RSS KiB"
for n in "${counts[@]}"; do
    cap="$work/bench-$n.btsnoop"
    [ -f "$cap" ] || python3 Benchmarks/make_capture.py "$cap" "$n" >/dev/null
    for mode in "read" "read --count" "read -w pcapng"; do
        case "$mode" in
            "read") args=(read "$cap"); sink=/dev/null ;;
            "read --count") args=(read --count "$cap"); sink=/dev/null ;;
            "read -w pcapng") args=(read --count "$cap" -w "$work/out.pcapng"); sink=/dev/null ;;
        esac
        /usr/bin/time -f "%e %M" -o "$work/time.txt" "$bin" "${args[@]}" >"$sink"
        read -r secs rss <"$work/time.txt"
        printf "%-10s %-28s %10s %12s\n" "$n" "$mode" "$secs" "$rss"
    done
done
rm -f "$work/out.pcapng"
