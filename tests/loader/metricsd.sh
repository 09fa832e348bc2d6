# Metrics written by the daemon itself (metrics_file, metrics_interval_s):
#  - the file appears, is well-formed Prometheus text (every sample line parses,
#    families grouped and announced once), says dcbpf_daemon_up 1;
#  - it is rewritten by rename (new inode, no .tmp left) and its counters move
#    while a PowerTCP flow runs;
#  - a reload with a bad metrics_file is named and writing goes on; a reload to
#    another path moves the file there;
#  - the stop writes a last file: dcbpf_daemon_up 0, nothing registered.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# SC2317: cleanup runs from the EXIT trap.
# SC2119: dcbpfd_start takes optional CC lines, none here.
# shellcheck disable=SC2015,SC2317,SC2119
set -u
cd "$(dirname "$0")/../.." || exit 1
source tests/lib/harness.sh
source tests/lib/dcbpfd.sh

BUILD=${BUILD:-build}
NS=dcbpf-md$$
PORT=5321
TF=$(mktemp -d /tmp/dcbpf-metricsd-XXXXXX)
PROM=$TF/dcbpf.prom
PIDS=""

cleanup() {
	local p
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	ip netns del "$NS" 2>/dev/null
	dcbpfd_stop
	rm -rf "$TF"
}
trap cleanup EXIT

[ -x "$BUILD/dcbpfd" ] || { t_fail "metricsd: dcbpfd built" "run make"; exit 1; }
DCBPFD_DAEMON="metrics_file = $PROM\nmetrics_interval_s = 1"
if ! dcbpfd_start; then
	t_fail "metricsd: dcbpfd starts" "$DCBPFD_ERR"
	exit 1
fi
LOG=${DCBPFD_CONF%.conf}.log
sample() { awk -v m="$1" '$1 == m { print $2 }' "$2"; }

if ! wait_until 5 test -s "$PROM"; then
	t_fail "metricsd: the daemon writes metrics_file" "no $PROM; $(tail -n 3 "$LOG" | tr '\n' ' ')"
	exit 1
fi
cp "$PROM" "$TF/a"
# every line: a comment (HELP/TYPE) or NAME{labels} VALUE
bad=$(grep -vE '^# (HELP|TYPE) [a-z_]+ |^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [0-9]+(\.[0-9]+)?$' "$TF/a")
fam=$(awk '/^# TYPE /{ if (seen[$3]++) print "dup " $3; fam = $3; next }
	/^#/ { next }
	{ n = $1; sub(/\{.*/, "", n); if (n != fam) print "stray " n }' "$TF/a")
[ -z "$bad" ] && [ -z "$fam" ] && [ "$(sample dcbpf_daemon_up "$TF/a")" = 1 ] &&
	[ "$(sample dcbpf_cc_flows_max_entries "$TF/a")" = 65536 ] &&
	t_pass "metricsd: metrics_file parses: every sample line, families grouped, daemon_up 1, flows_max_entries 65536" ||
	t_fail "metricsd: metrics_file parses" "$(echo "$bad $fam" | head -n 3 | tr '\n' ' ') up=$(sample dcbpf_daemon_up "$TF/a")"

ip netns add "$NS" && ip -n "$NS" link set lo up
ip netns exec "$NS" iperf3 -s -p $PORT >/dev/null 2>&1 &
PIDS="$PIDS $!"
sleep 0.5
acks0=$(sample 'dcbpf_cc_acks_total{cc="powertcp"}' "$PROM")
ino0=$(stat -c %i "$PROM")
ip netns exec "$NS" iperf3 -c 127.0.0.1 -p $PORT -C powertcp -b 20M -t 2 >/dev/null 2>&1
moved() { local a; a=$(sample 'dcbpf_cc_acks_total{cc="powertcp"}' "$PROM"); [ -n "$a" ] && [ "$a" -gt "${acks0:-0}" ]; }
if wait_until 5 moved && [ "$(stat -c %i "$PROM")" != "$ino0" ] && [ ! -e "$PROM.tmp" ]; then
	t_pass "metricsd: counters move ($acks0 -> $(sample 'dcbpf_cc_acks_total{cc="powertcp"}' "$PROM") powertcp ACKs), file replaced by rename, no .tmp left"
else
	t_fail "metricsd: counters move" "acks $acks0 -> $(sample 'dcbpf_cc_acks_total{cc="powertcp"}' "$PROM") inode $ino0 -> $(stat -c %i "$PROM")"
fi

# ---- reloads -----------------------------------------------------------------------------------
sed -i "s|^metrics_file = .*|metrics_file = relative.prom|" "$DCBPFD_CONF"
kill -HUP "$DCBPFD_PID"
wait_until 5 grep -q "keeping the running configuration" "$LOG"
ino1=$(stat -c %i "$PROM")
if grep -q "metrics_file = relative.prom: not an absolute path" "$LOG" && wait_until 5 bash -c "[ \$(stat -c %i '$PROM') != $ino1 ]"; then
	t_pass "metricsd: a bad metrics_file in a reload is named; the file keeps being written"
else
	t_fail "metricsd: bad metrics_file in a reload" "$(tail -n 3 "$LOG" | tr '\n' ' ')"
fi
sed -i "s|^metrics_file = .*|metrics_file = $TF/moved.prom|" "$DCBPFD_CONF"
kill -HUP "$DCBPFD_PID"
wait_until 5 test -s "$TF/moved.prom" && [ ! -e "$PROM" ] &&
	t_pass "metricsd: a reload moves metrics_file (new path written, old one removed)" ||
	t_fail "metricsd: a reload moves metrics_file" "$(cd "$TF" && echo *)"

# ---- stop: last snapshot -------------------------------------------------------------------------
kill -TERM "$DCBPFD_PID"
wait "$DCBPFD_PID" 2>/dev/null
DCBPFD_PID=""
P=$TF/moved.prom
[ "$(sample dcbpf_daemon_up "$P")" = 0 ] && [ "$(sample 'dcbpf_cc_registered{cc="powertcp"}' "$P")" = 0 ] &&
	! grep -q '^dcbpf_cc_acks_total' "$P" &&
	t_pass "metricsd: the stop leaves a last file: daemon_up 0, powertcp not registered, no counters" ||
	t_fail "metricsd: last file at stop" "$(grep -v '^#' "$P" | head -n 4 | tr '\n' ' ')"
exit 0
