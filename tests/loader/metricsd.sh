# Metrics written by the daemon itself (metrics_file, metrics_interval_s):
#  - the file appears, is well-formed Prometheus text (every sample line parses,
#    families grouped and announced once), says dcbpf_daemon_up 1;
#  - with a switch, its INT transit, host INT programs and Ethereal host and
#    leaf pinned, both the daemon's file and `dcbpf metrics` pass `promtool
#    check metrics` (Debian's prometheus package; a skip without it, a failure
#    under CI=true), carry a family for every member of the counter lists in
#    include/dcbpf/, port rates are in bytes per second and dcbpf_build_info
#    matches --version;
#  - it is rewritten by rename (new inode, no .tmp left) and its counters move
#    while a PowerTCP flow runs;
#  - a reload with a bad metrics_file is named and writing goes on; a reload to
#    another path moves the file there;
#  - the stop writes a last file: dcbpf_daemon_up 0, nothing registered.
# host-suite: the daemon's Prometheus file (format, rename, reload, last write) lies above
# the pinning and attach paths that tests/loader/dcbpfd.sh, tests/integ/int.sh, admit.sh and
# ethereal.sh cover on every kernel.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# SC2317: cleanup runs from the EXIT trap.
# SC2119: dcbpfd_start takes optional CC lines, none here.
# shellcheck disable=SC2015,SC2317,SC2119
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/dcbpfd.sh

NS=dcbpf-md$$
PORT=5321
TF=$(mktemp -d /tmp/dcbpf-metricsd-XXXXXX)
PROM=$TF/dcbpf.prom
PIDS=""

# the switch and INT pins of the promtool part
sw_down() {
	[ -n "${DCBPFD_PIN:-}" ] || return 0
	"$BUILD/dcbpf" --pin-dir "$DCBPFD_PIN" int detach --netns "$NS" hc0 >/dev/null 2>&1
	"$BUILD/dcbpf" --pin-dir "$DCBPFD_PIN" ethereal host detach --netns "$NS" ec0 >/dev/null 2>&1
	"$BUILD/dcbpf" --pin-dir "$DCBPFD_PIN" ethereal leaf detach --netns "$NS" >/dev/null 2>&1
	"$BUILD/dcbpf" --pin-dir "$DCBPFD_PIN" int switch detach mdsw >/dev/null 2>&1
	"$BUILD/dcbpf" --pin-dir "$DCBPFD_PIN" switch down mdsw >/dev/null 2>&1
}

cleanup() {
	local p
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	sw_down
	ip netns del "$NS" 2>/dev/null
	dcbpfd_stop
	rm -rf "$TF"
}
t_cleanup cleanup

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

# ---- every family through promtool ---------------------------------------------------------
# A switch with two ports at table rates, INT transit on it and the host INT
# programs on a third interface: every family dcbpf writes is then present.
D=("$BUILD/dcbpf" --pin-dir "$DCBPFD_PIN")
ip netns add "$NS" && ip -n "$NS" link set lo up
ip -n "$NS" link add va0 type veth peer name vb0
ip -n "$NS" link add hc0 type veth peer name hd0
ip -n "$NS" link add ec0 type veth peer name ed0
for d in va0 vb0 hc0 hd0 ec0 ed0; do ip -n "$NS" link set "$d" up; done
if out=$("${D[@]}" switch up mdsw --netns "$NS" --ports va0,vb0 --rate-mbps 1000,2500 2>&1) &&
	out=$("${D[@]}" int switch attach mdsw 2>&1) &&
	out=$("${D[@]}" int attach --netns "$NS" hc0 2>&1) &&
	out=$("${D[@]}" ethereal host attach --netns "$NS" --mode ethereal --paths 2 \
		--leaf 10.79.1.0/24=1 ec0 2>&1) &&
	out=$("${D[@]}" ethereal leaf attach --netns "$NS" --ports ed0 --uplinks ec0=10.79.0.2 2>&1); then
	t_pass "metricsd: switch, INT transit, host INT and Ethereal host and leaf pinned for the metrics"
else
	t_fail "metricsd: switch, INT transit, host INT and Ethereal pinned" "$out"
fi
# the daemon's next snapshot has the switch, host INT and the Ethereal
# leaf (a slow machine can write one snapshot between the attachments)
wait_until 10 grep -q '^dcbpf_int_switch_transit_filled_total{switch="mdsw"}' "$PROM" &&
	wait_until 10 grep -q '^dcbpf_int_host_attached{netns="'"$NS"'",ifname="hc0"} 1' "$PROM" &&
	wait_until 10 grep -q '^dcbpf_eth_leaf_steered_total{netns="'"$NS"'"}' "$PROM"
cp "$PROM" "$TF/b"
"${D[@]}" metrics >"$TF/cli" 2>"$TF/cli.err"
fams=$(grep -c '^# TYPE ' "$TF/b")
source tests/lib/promtool.sh
PROMTOOL=$(dc_promtool)
for src in "metrics_file:$TF/b" "dcbpf metrics:$TF/cli"; do
	name=${src%%:*} f=${src#*:}
	if [ -z "$PROMTOOL" ]; then
		t_skip "metricsd: $name passes promtool check metrics" "no promtool, and Debian's prometheus package could not be downloaded"
	elif out=$("$PROMTOOL" check metrics <"$f" 2>&1) && [ -z "$out" ]; then
		t_pass "metricsd: $name passes promtool check metrics ($(grep -c '^# TYPE ' "$f") families)"
	else
		t_fail "metricsd: $name passes promtool check metrics" "$(echo "$out" | head -n 5 | tr '\n' ' ')"
	fi
done
# the checker must be able to fail: a counter without _total and a unit it rejects
if [ -n "$PROMTOOL" ]; then
	printf '# HELP dcbpf_x_mbps x\n# TYPE dcbpf_x_mbps counter\ndcbpf_x_mbps 1\n' >"$TF/bad"
	! "$PROMTOOL" check metrics <"$TF/bad" >/dev/null 2>&1 &&
		t_pass "metricsd: promtool rejects a counter named dcbpf_x_mbps (the check can fail)" ||
		t_fail "metricsd: promtool rejects a counter named dcbpf_x_mbps" "accepted"
fi
r0=$(sample 'dcbpf_sw_port_rate_bytes_per_second{switch="mdsw",port="0",ifname="va0"}' "$TF/b")
r1=$(sample 'dcbpf_sw_port_rate_bytes_per_second{switch="mdsw",port="1",ifname="vb0"}' "$TF/b")
[ "$r0" = 125000000 ] && [ "$r1" = 312500000 ] && ! grep -qE '^(# TYPE )?dcbpf_[a-z_]*_(mbps|kbps|us|ms)[{ ]' "$TF/b" "$TF/cli" &&
	t_pass "metricsd: port rates in bytes per second (1000 and 2500 Mbit/s: $r0, $r1), no non-base unit in any name" ||
	t_fail "metricsd: port rates in bytes per second" "va0 $r0 vb0 $r1; $(grep -hoE '^(# TYPE )?dcbpf_[a-z_]*_(mbps|kbps|us|ms)[{ ]' "$TF/b" "$TF/cli" | sort -u | tr '\n' ' ')"
ver=$("$BUILD/dcbpf" --json --version)
want=$(echo "$ver" | jq -r '"dcbpf_build_info{version=\"\(.version)\",git=\"\(.git)\",libbpf=\"\(.libbpf.running)\"} 1"')
[ "$(grep '^dcbpf_build_info' "$TF/b")" = "$want" ] && [ "$(grep '^dcbpf_build_info' "$TF/cli")" = "$want" ] &&
	t_pass "metricsd: dcbpf_build_info carries --version's version, git and libbpf ($want)" ||
	t_fail "metricsd: dcbpf_build_info matches --version" "want $want; file: $(grep '^dcbpf_build_info' "$TF/b"); cli: $(grep '^dcbpf_build_info' "$TF/cli")"
# Every counter of the lists in the headers (include/dcbpf/counters.h) has its
# family, read from the headers here, not from the C tables: per list, the
# members as "NAME FLAGS PROMETHEUS-NAME" (the last empty: the member's name).
ctr_list() {
	awk -v l="#define $2(X)" 'index($0, l) == 1 { on = 1; next }
		on && /^\tX\(/ { s = $0; sub(/^\tX\(/, "", s); n = split(s, a, ", ")
			p = a[3]; gsub(/"/, "", p); sub(/\{.*/, "", p); sub(/,.*$/, "", p)
			print a[1], a[2], p }
		on && !/\\$/ { on = 0 }' "$1"
}
ctr_missing() { # file prefix header list
	local n fl p m k=0
	while read -r n fl p; do
		k=$((k + 1))
		m=$2${p:-$n}
		[ "$fl" = DC_CTR_NOPORT ] && m=dcbpf_sw_${p:-$n}
		[ "$fl" = DC_CTR_GAUGE ] || m=${m}_total
		grep -q "^# TYPE $m " "$1" && grep -q "^$m[{ ]" "$1" || printf '%s ' "$m"
	done < <(ctr_list "$3" "$4")
	[ "$k" -ge 9 ] || printf 'only %s members in %s ' "$k" "$4"
}
for src in "metrics_file:$TF/b" "dcbpf metrics:$TF/cli"; do
	name=${src%%:*} f=${src#*:}
	miss=$(ctr_missing "$f" dcbpf_cc_ include/dcbpf/types.h DC_CC_COUNTERS
		ctr_missing "$f" dcbpf_int_ include/dcbpf/types.h DC_INT_COUNTERS
		ctr_missing "$f" dcbpf_int_switch_ include/dcbpf/types.h DC_INT_COUNTERS
		ctr_missing "$f" dcbpf_sw_port_ include/dcbpf/switch.h DC_SW_COUNTERS
		ctr_missing "$f" dcbpf_eth_host_ include/dcbpf/ethereal.h DC_ETH_HCOUNTERS
		ctr_missing "$f" dcbpf_eth_leaf_ include/dcbpf/ethereal.h DC_ETH_LCOUNTERS)
	[ -z "$miss" ] && grep -q "^dcbpf_eth_leaf_steered_total{netns=\"$NS\"} 0$" "$f" &&
		grep -q '^dcbpf_sw_port_dropped_packets_total{switch="mdsw",port="1",ifname="vb0",reason="prediction"} 0$' "$f" &&
		t_pass "metricsd: $name has a family for every member of the six counter lists (INT tag counters, Credence, Ethereal host and leaf included)" ||
		t_fail "metricsd: $name has every counter" "missing: $miss"
done
# the check can fail: a list member the output lacks is named
miss=$(grep -v '^dcbpf_eth_leaf_fib_fail_total\|^# [A-Z]* dcbpf_eth_leaf_fib_fail_total' "$TF/cli" >"$TF/cut"
	ctr_missing "$TF/cut" dcbpf_eth_leaf_ include/dcbpf/ethereal.h DC_ETH_LCOUNTERS)
[ "$miss" = "dcbpf_eth_leaf_fib_fail_total " ] &&
	t_pass "metricsd: a counter cut from the output is reported missing ($miss)" ||
	t_fail "metricsd: a counter cut from the output is reported missing" "got '$miss'"
[ "$fams" -ge 40 ] && [ -s "$TF/cli" ] && ! [ -s "$TF/cli.err" ] &&
	t_pass "metricsd: the exposition has every family ($fams), dcbpf metrics says nothing on stderr" ||
	t_fail "metricsd: the exposition has every family" "$fams families in the file; dcbpf metrics stderr: $(head -c 200 "$TF/cli.err")"
sw_down

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
