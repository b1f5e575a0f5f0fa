#!/usr/bin/env bash
# Fuzzes every target of EaselFuzzer (or those named) for SECONDS each with
# libFuzzer and AddressSanitizer, and prints one line a target: runs, runs
# a second, covered edges and features, corpus size. Docs/RELIABILITY.md.
#
#   Tests/Fuzz/fuzz.sh [SECONDS] [TARGET...]   default 30 s, every target
#   Tests/Fuzz/fuzz.sh --quick                 CI's form: 30 s each, a debug
#                                              build, two targets at a time
#
# The corpus of each target grows in .build-fuzz/corpus/<target> from one
# long run to the next, starting from the seeds `EaselFuzzer seed` writes. A
# finding stops that target and leaves the input in .build-fuzz/findings;
# the script exits non-zero. Copy a finding into
# Tests/Fuzz/regressions/<target>/ and FuzzRegressionTests replays it in
# the suite from then on.
set -euo pipefail
cd "$(dirname "$0")/../.."

mode=release at_once=1 timeout=10 corpora=.build-fuzz/corpus
if [ "${1:-}" = "--quick" ]; then
    # Unoptimised code builds in a fraction of the time; the short run is a
    # smoke test of every target, not a search. It also runs ten to twenty
    # times slower: a script the release build runs in 0.7 s takes over
    # 10 s, so only the release runs look for hangs.
    # Its corpus starts from the seeds every time: the long runs' corpora
    # hold inputs that take seconds each here.
    mode=debug at_once=2 timeout=120 corpora=.build-fuzz/quick
    rm -rf "$corpora"
    shift
    set -- 30 "$@"
fi
seconds=${1:-30}
shift || true
if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
    echo "fuzz: SECONDS must be a whole number above 0, not $seconds" >&2
    exit 2
fi
swift build -c "$mode" --product EaselFuzzer --scratch-path .build-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld >&2
fuzzer=$(swift build -c "$mode" --scratch-path .build-fuzz --show-bin-path)/EaselFuzzer

mkdir -p .build-fuzz/seeds .build-fuzz/findings
"$fuzzer" seed .build-fuzz/seeds >/dev/null
targets=("$@")
((${#targets[@]})) || mapfile -t targets < <("$fuzzer" list | cut -d: -f1)

# Runs one target; its log is .build-fuzz/findings/<target>.log.
fuzz() {
    local target=$1 corpus=$corpora/$1 regressions=()
    mkdir -p "$corpus"
    cp -n .build-fuzz/seeds/"$target"/* "$corpus"/ 2>/dev/null || true
    [ -d Tests/Fuzz/regressions/"$target" ] && regressions=(Tests/Fuzz/regressions/"$target")
    # -timeout: an input that takes 10 s in a release build is a hang worth
    # a report;
    # -rss_limit_mb: AddressSanitizer's quarantine counts toward it.
    "$fuzzer" "$target" "$corpus" "${regressions[@]}" -max_total_time="$seconds" \
        -max_len=4096 -timeout="$timeout" -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix=.build-fuzz/findings/"$target"- >.build-fuzz/findings/"$target".log 2>&1
}

# The last status line: #runs DONE cov: edges ft: features corp: inputs/size …
report() {
    local target=$1 line runs
    # None when it failed before its first status line.
    line=$(grep -E '^#[0-9]+' .build-fuzz/findings/"$target".log | tail -n 1 || true)
    runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$line")
    printf '%-8s %8s %12s %8s %8s %8s %8s\n' "$target" "$seconds" "${runs:-0}" "$((${runs:-0} / seconds))" \
        "$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$line")" "$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$line")" \
        "$(sed -n 's/.*corp: \([0-9]*\).*/\1/p' <<<"$line")"
}

failed=0
printf '%-8s %8s %12s %8s %8s %8s %8s\n' target seconds runs runs/s edges features corpus
for ((first = 0; first < ${#targets[@]}; first += at_once)); do
    batch=("${targets[@]:first:at_once}")
    pids=()
    for target in "${batch[@]}"; do
        fuzz "$target" &
        pids+=($!)
    done
    for index in "${!batch[@]}"; do
        if ! wait "${pids[index]}"; then
            failed=1
            echo "fuzz: ${batch[index]} found an input that breaks its property;" \
                "see .build-fuzz/findings/${batch[index]}.log" >&2
        fi
        report "${batch[index]}"
    done
done
exit "$failed"
