# The preamble of every shell test: `source "$(dirname "$0")/../lib/test.sh"`
# from a script in tests/<kind>/ gives
#   - the working directory at the repository's root, set -u
#   - BUILD, OUT (defaults build, out) exported
#   - the result lines of tests/lib/harness.sh (t_pass, t_fail, t_skip,
#     t_check, t_expect_fail, wait_until)
#   - t_cleanup CMD...: run CMD at exit, the last registered first
#   - t_stop PID: stop one process this test started (TERM, then KILL)
#   - t_mktmp NAME: a temporary directory, removed at exit
#   - t_unpin_cc DIR...: a daemon's pins gone, its CCs unregistered
#   - t_need_root NAME [WHY]: not root is a SKIP of NAME and the end of the script
#   - expect, jqs, jqv: exit code + output checks (below)
# shellcheck shell=bash
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
source tests/lib/harness.sh

BUILD=${BUILD:-build}
OUT=${OUT:-out}
export BUILD OUT

# Cleanup registry: each entry is one command line, run in reverse order of
# registration by the EXIT trap.  Scripts register instead of writing their
# own trap, so two helpers that both clean up do not overwrite each other.
T_CLEANUPS=()
t_cleanup() { T_CLEANUPS+=("$(printf '%q ' "$@")"); }
t_run_cleanups() {
	local i
	for ((i = ${#T_CLEANUPS[@]} - 1; i >= 0; i--)); do
		eval "${T_CLEANUPS[i]}" || true
	done
	T_CLEANUPS=()
	rm -rf /tmp/dcbpf-*."$$".??????
}
trap t_run_cleanups EXIT

# t_stop PID: TERM, up to 5 s for it to go, then KILL; reaps it if it is our child.
t_stop() {
	local p=$1
	[ -n "$p" ] || return 0
	kill -TERM "$p" 2>/dev/null || return 0
	for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	return 0
}
# t_unpin_cc DIR...: a daemon's pin directory gone: unregistering its pinned
# struct_ops maps first, which unregisters the CCs (rm alone leaves them
# registered while the kernel still holds the map).
t_unpin_cc() {
	local d m
	for d in "$@"; do
		[ -d "$d" ] || continue
		for m in dc_powertcp dc_theta_ptcp; do
			[ -e "$d/$m" ] && bpftool struct_ops unregister pinned "$d/$m" >/dev/null 2>&1
		done
		rm -rf "$d"
	done
	return 0
}

# t_mktmp NAME: prints a fresh directory /tmp/dcbpf-NAME.PID.XXXXXX; the
# script's own ($$ is the script's PID also inside $(...)) go at exit.
# Use: dir=$(t_mktmp NAME) || exit 1
t_mktmp() {
	mktemp -d "/tmp/dcbpf-$1.$$.XXXXXX" || { t_fail "$1: temporary directory" "mktemp failed"; return 1; }
}

# t_need_root NAME [WHY]: not root is a skip of NAME (a failure under CI),
# and the script ends.
t_need_root() {
	[ "$(id -u)" = 0 ] && return 0
	t_skip "$1" "${2:-needs root}"
	exit 0
}

# expect NAME CODE PATTERN CMD...: CMD exits with CODE and its stderr+stdout match PATTERN
expect() {
	local name=$1 code=$2 pat=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$code" ] && grep -qE -- "$pat" <<<"$out"; then
		t_pass "$name"
	else
		t_fail "$name" "exit $rc (want $code), output: $(echo "$out" | tail -n 2 | tr '\n' ' ') (want /$pat/)"
	fi
}
# jqs NAME FILTER CMD...: CMD's JSON output satisfies the jq FILTER
jqs() {
	local name=$1 filter=$2 out
	shift 2
	out=$("$@" 2>&1)
	jqv "$name" "$out" "$filter"
}
# jqe ARGS...: `jq -e ARGS...` that also fails when jq printed nothing (jq
# 1.6's -e exits 0 on an empty input, so a command that printed nothing
# would pass any filter). Prints jq's output like jq does.
jqe() {
	local out
	out=$(jq -e "$@") || return 1
	[ -n "$out" ] || { echo "jqe: no JSON value to test (empty input)" >&2; return 1; }
	printf '%s\n' "$out"
}
export -f jqe	# for the checks run through bash -c
# jqv NAME JSON FILTER: the JSON text satisfies the jq FILTER
jqv() {
	# jq 1.6's -e exits 0 on empty input (no value at all): an empty
	# document must fail, not pass
	local r
	if r=$(jq -e "$3" <<<"$2" 2>/dev/null) && [ -n "$r" ]; then
		t_pass "$1"
	else
		t_fail "$1" "$(echo "$2" | tr '\n' ' ' | cut -c1-400) (want $3)"
	fi
}
