#!/usr/bin/env bash
# Fuzzes every target of EaselFuzzer (or those named) for SECONDS each with
# libFuzzer and AddressSanitizer, and prints one line a target: runs, runs
# a second, covered edges and features, corpus size. Docs/RELIABILITY.md.
#
#   Tests/Fuzz/fuzz.sh [SECONDS] [TARGET...]     (default 30 s, all targets)
#
# The corpus of each target grows in .build-fuzz/corpus/<target> from one
# run to the next, starting from the seeds `EaselFuzzer seed` writes. A
# finding stops that target and leaves the input in .build-fuzz/findings;
# the script exits non-zero. Copy a finding into
# Tests/Fuzz/regressions/<target>/ and FuzzRegressionTests replays it in
# the suite from then on.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-30}
shift || true
mode=${EASEL_FUZZ_BUILD:-release}
swift build -c "$mode" --product EaselFuzzer --scratch-path .build-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld >&2
fuzzer=$(swift build -c "$mode" --scratch-path .build-fuzz --show-bin-path)/EaselFuzzer

mkdir -p .build-fuzz/seeds .build-fuzz/findings
"$fuzzer" seed .build-fuzz/seeds >/dev/null
targets=("$@")
((${#targets[@]})) || mapfile -t targets < <("$fuzzer" list | cut -d: -f1)

failed=0
printf '%-8s %8s %12s %8s %8s %8s %8s\n' target seconds runs runs/s edges features corpus
for target in "${targets[@]}"; do
    corpus=.build-fuzz/corpus/$target
    mkdir -p "$corpus"
    cp -n .build-fuzz/seeds/"$target"/* "$corpus"/ 2>/dev/null || true
    log=.build-fuzz/findings/$target.log
    regressions=()
    [ -d Tests/Fuzz/regressions/"$target" ] && regressions=(Tests/Fuzz/regressions/"$target")
    # -timeout: an input that takes 10 s is a hang worth a report;
    # -rss_limit_mb: AddressSanitizer's quarantine counts toward it.
    if ! "$fuzzer" "$target" "$corpus" "${regressions[@]}" -max_total_time="$seconds" \
        -max_len=4096 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix=.build-fuzz/findings/"$target"- >"$log" 2>&1; then
        failed=1
        echo "fuzz: $target found an input that breaks its property; see $log and .build-fuzz/findings/" >&2
    fi
    # The last status line: #runs DONE cov: edges ft: features corp: inputs/size … exec/s: n
    line=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
    runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$line")
    edges=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$line")
    features=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$line")
    inputs=$(sed -n 's/.*corp: \([0-9]*\).*/\1/p' <<<"$line")
    printf '%-8s %8s %12s %8s %8s %8s %8s\n' "$target" "$seconds" "$runs" "$((runs / seconds))" "$edges" "$features" "$inputs"
done
exit "$failed"
