# Start and stop a dcbpfd for a test, demo or experiment run.  Sourced.
#   dcbpfd_start ["key = value" ...]   lines added to every CC section
#   dcbpfd_stop
# DCBPFD_DAEMON (optional): lines added to [daemon]; DCBPFD_EXTRA (optional):
# text appended after the CC sections (e.g. "[int]\ninterfaces = veth*").
# Sets DCBPFD_PIN (pin dir), DCBPFD_PID, DCBPFD_CONF; DCBPFD_ERR on failure.
# The daemon gets its own pin dir, so an operator's /sys/fs/bpf/dcbpf is
# never touched; the CC names are global, so a second registration fails
# (and says so) instead of replacing someone else's.
# shellcheck shell=bash

DCBPFD_PID="" DCBPFD_PIN="" DCBPFD_CONF="" DCBPFD_ERR=""

dcbpfd_start() {
	local bin=${BUILD:-build}/dcbpfd line i
	DCBPFD_ERR=""
	[ -x "$bin" ] || { DCBPFD_ERR="$bin not built (run make)"; return 1; }
	if grep -qwE 'powertcp|theta_powertcp|hpcc|timely' /proc/sys/net/ipv4/tcp_available_congestion_control; then
		DCBPFD_ERR="powertcp/theta_powertcp/hpcc/timely already registered by another dcbpfd; stop it first"
		return 1
	fi
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	DCBPFD_PIN=/sys/fs/bpf/dcbpf-t$$-$RANDOM
	DCBPFD_CONF=$(mktemp /tmp/dcbpfd-XXXXXX.conf)
	{
		echo "[daemon]"
		echo "pin_dir = $DCBPFD_PIN"
		echo "lock_file = ${DCBPFD_CONF%.conf}.lock"
		[ -n "${DCBPFD_DAEMON:-}" ] && printf '%b\n' "$DCBPFD_DAEMON"
		for sec in powertcp theta_powertcp hpcc timely; do
			echo "[$sec]"
			for line in "$@"; do echo "$line"; done
		done
		[ -n "${DCBPFD_EXTRA:-}" ] && printf '%b\n' "$DCBPFD_EXTRA"
	} >"$DCBPFD_CONF"
	"$bin" -c "$DCBPFD_CONF" >"${DCBPFD_CONF%.conf}.log" 2>&1 &
	DCBPFD_PID=$!
	declare -F fabric_on_exit >/dev/null && fabric_on_exit dcbpfd_stop
	for i in $(seq 1 100); do
		if grep -qw theta_powertcp /proc/sys/net/ipv4/tcp_available_congestion_control &&
			grep -qw powertcp /proc/sys/net/ipv4/tcp_available_congestion_control &&
			grep -qw hpcc /proc/sys/net/ipv4/tcp_available_congestion_control &&
			grep -qw timely /proc/sys/net/ipv4/tcp_available_congestion_control; then
			return 0
		fi
		kill -0 "$DCBPFD_PID" 2>/dev/null || break
		sleep 0.1
	done
	DCBPFD_ERR="dcbpfd did not register the CCs: $(tail -n 3 "${DCBPFD_CONF%.conf}.log" | tr '\n' ' ')"
	dcbpfd_stop
	return 1
}

dcbpfd_stop() {
	local i
	# (a test that stopped the daemon itself clears DCBPFD_PID: its files
	# still go)
	if [ -n "$DCBPFD_PID" ]; then
		kill -TERM "$DCBPFD_PID" 2>/dev/null
		for i in $(seq 1 50); do
			kill -0 "$DCBPFD_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$DCBPFD_PID" 2>/dev/null
		wait "$DCBPFD_PID" 2>/dev/null
		DCBPFD_PID=""
	fi
	# A daemon that died without cleaning up must not leave pins behind.
	[ -n "${DCBPFD_PIN:-}" ] && [ -d "$DCBPFD_PIN" ] && rm -rf "$DCBPFD_PIN"
	# the config, its log and lock, and every file a test named after it
	case ${DCBPFD_CONF:-} in
	/tmp/dcbpfd-*.conf) rm -f "$DCBPFD_CONF" "${DCBPFD_CONF%.conf}".* ;;
	esac
	DCBPFD_CONF=""
	return 0
}
