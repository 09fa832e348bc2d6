# Shared by every shell test: result lines the runner (tests/run) counts.
#   PASS: name
#   FAIL: name: why
#   SKIP: name: why        (a failure under CI=true: nothing of the core may skip there)
# shellcheck shell=bash

t_pass() { echo "PASS: $1"; }
t_fail() { echo "FAIL: $1: ${2:-}"; T_FAILED=1; }
t_skip() {
	if [ "${CI:-}" = "true" ] && [ -z "${T_SKIP_OK_IN_CI:-}" ]; then
		echo "FAIL: $1: skipped under CI: ${2:-}"
		T_FAILED=1
	else
		echo "SKIP: $1: ${2:-}"
	fi
}
# t_check NAME CMD...: PASS when CMD succeeds, FAIL with its output otherwise.
t_check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then t_pass "$name"; else t_fail "$name" "$(echo "$out" | tail -n 3 | tr '\n' ' ')"; fi
}
# t_expect_fail NAME CMD...: PASS when CMD fails (an error path).
t_expect_fail() {
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then t_fail "$name" "expected failure, got success: $*"; else t_pass "$name"; fi
}
# wait_until SECONDS CMD...: poll CMD every 0.1 s; false if it never succeeds.
wait_until() {
	local n=$(($1 * 10))
	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}
