# Reconfiguration latency: from a live change to the first packet decided
# under the new value (tests/tools/cfgwatch polls the pinned maps every 20 µs from
# the moment the change starts), p50/p99 over RECONF_N changes of each
# kind, with a long TCP flow through the path all along:
#   reconf_set_sw_*   `dcbpf set sw.NAME.ecn_k_bytes=…` on a switch (an
#                     iperf3 CUBIC flow through it)
#   reconf_set_cc_*   `dcbpf set powertcp.min_cwnd_pkts=…` (a powertcp flow)
#   reconf_hup_cc_*   the same key changed in dcbpfd's file + SIGHUP
# *_live_us: the new value in the map the programs read; *_first_us: the
# first decision (switch: a packet admitted or dropped; CC: an ACK) after
# it; reconf_resets: TCP resets and failed connects of the sender while the
# changes ran (must be 0), and the flows must still be running after them. Values alternate between two
# valid ones. Root only; prints nothing it could not measure.
# shellcheck shell=bash
set -u
cd "$(dirname "$0")/../.." || exit 1
[ "$(id -u)" = 0 ] || { echo "reconf bench: needs root, skipped" >&2; exit 0; }
BUILD=${BUILD:-build}
N=${RECONF_N:-40}
W="$BUILD/tools/cfgwatch"
[ -x "$W" ] || { echo "reconf bench: $W not built" >&2; exit 1; }
source tests/lib/fabric.sh
source tests/lib/dcbpfd.sh
fabric_dumbbell 1 1000 1000000 >/dev/null || exit 1
PIN=/sys/fs/bpf/dcbpf-reconf$$
fabric_on_exit "'$BUILD/dcbpf' --pin-dir $PIN switch down rc >/dev/null 2>&1; rm -rf $PIN"
"$BUILD/dcbpf" --pin-dir "$PIN" switch up rc --netns "$FAB_SWITCH" --ports "${FAB_SW_PORTS[0]},$FAB_BN_DEV" \
	alg=dt alpha=1 buffer_bytes=1000000 ecn_k_bytes=30000 >/dev/null || exit 1
fabric_bg "$FAB_RECV" sh -c 'exec iperf3 -s -p 5201 >/dev/null 2>&1'
fabric_wait_port "$FAB_RECV" 5201 || exit 1
S=${FAB_SENDERS[0]}
resets() { ip netns exec "$S" awk '/^Tcp:/ { if (!h) { for (i = 2; i <= NF; i++) f[$i] = i; h = 1; next }
	print $(f["EstabResets"]) + $(f["AttemptFails"]) }' /proc/net/snmp; }
# pct P FILE: nearest-rank percentile of a column of numbers
pct() { sort -g "$2" | awk -v p="$1" '{ v[NR] = $1 } END { if (NR) print v[int(p * NR + 0.999) < 1 ? 1 : int(p * NR + 0.999)] }'; }
TMP=$(mktemp -d /tmp/reconf.XXXXXX)
fabric_on_exit "rm -rf $TMP"
# resets during the changes only: ending a flow with kill resets it
RESETS=0
emit() { # NAME: p50/p99 of live and first from $TMP/NAME.jsonl
	local f=$TMP/$1.jsonl k
	[ -s "$f" ] || return 0
	for k in live first; do
		jq -r ".${k}_us // empty" "$f" >"$TMP/$1.$k"
		[ -s "$TMP/$1.$k" ] || continue
		printf '{"reconf_%s_%s_us_p50": {"value": %s, "unit": "us"}, "reconf_%s_%s_us_p99": {"value": %s, "unit": "us"}}\n' \
			"$1" "$k" "$(pct 0.5 "$TMP/$1.$k")" "$1" "$k" "$(pct 0.99 "$TMP/$1.$k")"
	done
	echo "reconf bench: $1: $(wc -l <"$f") changes, $(grep -c '"first_us":null' "$f") without a decision before the timeout" >&2
}

# ---- a switch parameter, dcbpf set ---------------------------------------------
fabric_bg "$S" iperf3 -c "$FAB_RECV_IP" -p 5201 -t 600 >/dev/null 2>&1
flow=$FAB_LAST_PID
sleep 1
r0=$(resets)
for ((i = 0; i < N; i++)); do
	v=$((30000 + (i + 1) % 2))
	"$W" --sw "$PIN/sw/rc" --field ecn_k_bytes --want $v -- "$BUILD/dcbpf" --pin-dir "$PIN" set sw.rc.ecn_k_bytes=$v \
		>>"$TMP/set_sw.jsonl" 2>>"$TMP/err"
done
RESETS=$((RESETS + $(resets) - r0))
kill -0 "$flow" 2>/dev/null || echo "reconf bench: the switch's flow ended early" >&2
fabric_kill "$flow"
emit set_sw

# ---- a CC parameter: dcbpf set, then the daemon's file and SIGHUP ---------------
if dcbpfd_start "host_bw_mbps = 1000" "min_cwnd_pkts = 2" 2>/dev/null; then
	fabric_bg "$S" iperf3 -c "$FAB_RECV_IP" -p 5201 -t 600 -C powertcp >/dev/null 2>&1
	flow=$FAB_LAST_PID
	sleep 1
	r0=$(resets)
	for ((i = 0; i < N; i++)); do
		v=$((2 + (i + 1) % 2))
		"$W" --cc "$DCBPFD_PIN" --id 0 --field min_cwnd_pkts --want $v -- \
			"$BUILD/dcbpf" --pin-dir "$DCBPFD_PIN" set powertcp.min_cwnd_pkts=$v >>"$TMP/set_cc.jsonl" 2>>"$TMP/err"
	done
	cur=$v
	for ((i = 0; i < N; i++)); do
		v=$((2 + (cur + 1 - 2) % 2)) cur=$v
		sed -i "s/^min_cwnd_pkts = .*/min_cwnd_pkts = $v/" "$DCBPFD_CONF"
		"$W" --cc "$DCBPFD_PIN" --id 0 --field min_cwnd_pkts --want $v --timeout-ms 5000 -- \
			kill -HUP "$DCBPFD_PID" >>"$TMP/hup_cc.jsonl" 2>>"$TMP/err"
	done
	RESETS=$((RESETS + $(resets) - r0))
	kill -0 "$flow" 2>/dev/null || echo "reconf bench: the powertcp flow ended early" >&2
	fabric_kill "$flow"
	dcbpfd_stop
	emit set_cc
	emit hup_cc
else
	echo "reconf bench: no dcbpfd (CCs registered elsewhere?): CC changes not measured" >&2
fi
printf '{"reconf_resets": {"value": %d, "unit": "connections"}}\n' "$RESETS"
[ -s "$TMP/err" ] && echo "reconf bench: $(sort "$TMP/err" | uniq -c | head -n 5)" >&2
exit 0
