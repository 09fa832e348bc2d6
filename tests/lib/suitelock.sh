# shellcheck shell=bash
# suite_lock_take: hold the suite lock (/tmp/dcbpf-suite.lock, the one
# tests/run takes) until this shell exits, so an experiment and a test suite
# never share the machine's namespaces and timing; nothing when the caller
# already holds it (DCBPF_SUITE_LOCKED=1).
suite_lock_take() {
	[ "${DCBPF_SUITE_LOCKED:-}" = 1 ] && return 0
	exec {SUITE_LOCK_FD}>>/tmp/dcbpf-suite.lock
	flock "$SUITE_LOCK_FD"
}
