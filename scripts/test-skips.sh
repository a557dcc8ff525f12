#!/usr/bin/env bash
# `make test`'s last lines: how many tests skipped and why (issue 59: skips went to stderr, which
# cargo hides for a passing test, so a machine without the corpora, Java or chromium showed the
# same green). Reads the log brain_tests::skip appends to; exits with the status it is given (the
# tests' own).
#
#   scripts/test-skips.sh LOG STATUS
log=$1
status=${2:-0}
if [ -s "$log" ]; then
  n=$(wc -l < "$log")
  echo "make test: $n tests skipped (their reasons, most first):"
  cut -f2 "$log" | sort | uniq -c | sort -rn | sed 's/^/  /'
else
  echo "make test: 0 tests skipped"
fi
exit "$status"
