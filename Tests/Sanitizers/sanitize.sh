#!/usr/bin/env bash
# Runs the whole Swift suite (or the tests FILTER names) with every target,
# the easel executable the tests start included, built under a sanitizer.
# Docs/RELIABILITY.md.
#
#   Tests/Sanitizers/sanitize.sh thread|address [FILTER]
#
# Every process writes its reports to .build-<sanitizer>/reports/; the run
# fails when a test fails or any report was written, and prints them.
set -euo pipefail
cd "$(dirname "$0")/../.."

sanitizer=${1:-}
case $sanitizer in
thread) scratch=.build-tsan ;;
address) scratch=.build-asan ;;
*)
    echo "sanitize: name a sanitizer: thread or address" >&2
    exit 2
    ;;
esac
filter=()
[ -n "${2:-}" ] && filter=(--filter "$2")

reports=$PWD/$scratch/reports
rm -rf "$reports"
mkdir -p "$reports"
# Reports go to files, from the test runner and from every server, bot and
# tool it starts (a child's standard error is often a pipe nobody prints).
export TSAN_OPTIONS="log_path=$reports/tsan second_deadlock_stack=1"
# LeakSanitizer is left out: the Swift runtime's caches live until exit by
# design and would bury everything else. The quarantine of freed memory,
# where a use after free is caught, is 32 MB instead of 256: the tests bound
# their servers' memory (with room for ASan's own, sanitizerMemoryFactor),
# and a server holds 256 MB of freed memory within seconds of a flood.
export ASAN_OPTIONS="log_path=$reports/asan detect_leaks=0 quarantine_size_mb=32"

# LockedTests checks, under this, that the locks report to ThreadSanitizer.
export EASEL_SANITIZER=$sanitizer

swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
status=0
run() { swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "$@" || status=$?; }
if [ ${#filter[@]} -gt 0 ]; then
    run "${filter[@]}"
else
    # The suites that run a crowd of sanitized bots against a sanitized
    # server for a minute or more each run alone after the rest: beside the
    # rest of the suite they ran out of time, not into a report.
    heavy=(ChaosKillTests ChaosSoakTests ChaosHostileTests ChaosNetTests WelcomeCrowdTests)
    run --skip "$(IFS='|'; echo "${heavy[*]}")"
    for suite in "${heavy[@]}"; do run --filter "$suite"; done
fi

found=$(find "$reports" -type f | wc -l)
if [ "$found" -gt 0 ]; then
    echo "sanitize: $found report(s) from $sanitizer sanitizer:" >&2
    for report in "$reports"/*; do
        echo "== $report" >&2
        head -n 60 "$report" >&2
    done
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "sanitize: the tests failed under the $sanitizer sanitizer (no sanitizer report)" >&2
    exit "$status"
fi
echo "sanitize: the suite passed under the $sanitizer sanitizer with no report"
