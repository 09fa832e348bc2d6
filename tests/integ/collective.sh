# Integration: the collective traffic generator (tests/tools/collective.c)
# on a leaf–spine of 2 leaves × 4 spines × 2 hosts (kernel ECMP).
# Checks: All-to-All and a 3-channel Ring complete with every byte received
# that was sent; Algorithm 3's split opens the planned number of sub-flows
# (counted by the receivers' kernels: TcpPassiveOpens in each namespace),
# none with --split off, and marks them for the host's Ethereal program; sub-flows carry their share of the bytes; start
# offsets follow the seed; a collective over dctcp runs with ECN; errors
# are named (unknown netns, CC not available, an address the host does
# not have) with exit 1.
# host-suite: the collective traffic generator (user space over kernel ECMP; it loads no BPF
# of dcbpf, so nothing here depends on the kernel's BPF); ethereal.sh takes Ethereal's paths
# on the same leaf–spine in the VM.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh
source tests/lib/dctcp.sh

LOG="$OUT/collective"
mkdir -p "$LOG"
COLL="$BUILD/tools/collective"
RATE=1000 BYTES=2000000
[ "${DCBPF_VM:-0}" = 1 ] && RATE=100 BYTES=500000

fabric_leafspine 2 4 2 $RATE 1000000 >/dev/null || { t_fail "collective: leaf-spine" "builder failed"; exit 1; }
fabric_on_exit dctcp_unregister
fabric_leafspine_ping_all >/dev/null || { t_fail "collective: leaf-spine reachable" "ping failed"; exit 1; }
LS="$FAB_ID:2:4:2"
N=${#FAB_HOSTS[@]}

passive() { # TcpPassiveOpens of every host, space separated
	local ns
	for ns in "${FAB_HOSTS[@]}"; do
		ip netns exec "$ns" nstat -az TcpPassiveOpens | awk '/TcpPassiveOpens/ { print $2 }'
	done | tr '\n' ' '
}
delta() { # before after → per-host differences
	local -a a b
	read -ra a <<<"$1"
	read -ra b <<<"$2"
	local i
	for i in "${!a[@]}"; do echo -n "$((b[i] - a[i])) "; done
}
# bytes: sent = received = Σ planned flow bytes, per flow too
bytes_ok() {
	jqe '.bytes_sent == .bytes_received and
		.bytes_sent == ([.flows[].bytes] | add) and
		all(.flows[]; .sent == .bytes and .received == .bytes and .ms > 0)' "$1" >/dev/null
}

# --- All-to-All ---------------------------------------------------------------
# per host: 1 flow inside its leaf (never split), 2 to the other leaf:
# n = 2, s = 4 → r = 2, g = 2: each split in 2 → 1 + 4 connections
if "$COLL" --leafspine "$LS" --pattern a2a --bytes $BYTES --cc cubic --seed 1 --jitter-us 1000 \
	>"$LOG/a2a.json" 2>"$LOG/a2a.err"; then
	c=$(jq .completion_ms "$LOG/a2a.json")
	t_pass "collective: all-to-all among $N hosts completes (${c} ms)"
else
	t_fail "collective: all-to-all completes" "$(cat "$LOG/a2a.err")"
fi
bytes_ok "$LOG/a2a.json" && t_pass "collective: a2a: every byte sent is received ($(jq .bytes_received "$LOG/a2a.json") B)" ||
	t_fail "collective: a2a: bytes received = sent" "$(jq -c '{bytes_sent, bytes_received}' "$LOG/a2a.json")"
conns=$(jq .connections "$LOG/a2a.json") logical=$(jq .logical_flows "$LOG/a2a.json")
[ "$logical" = $((N * (N - 1))) ] && [ "$conns" = $((N * 5)) ] &&
	t_pass "collective: a2a: $logical flows, split into $conns connections (plan: 1 + 2·2 per host)" ||
	t_fail "collective: a2a split plan" "$logical flows, $conns connections (want $((N * (N - 1))), $((N * 5)))"
# the collective completes with its slowest flow
jqe '(.completion_ms >= .flow_ms_max) and (.completion_ms <= .flow_ms_max + 2)' "$LOG/a2a.json" >/dev/null &&
	t_pass "collective: a2a: completion = last flow's end (offsets ≤ 1 ms)" ||
	t_fail "collective: a2a: completion = last flow's end" "$(jq -c '{completion_ms, flow_ms_max}' "$LOG/a2a.json")"

# --- Ring, 3 channels: n = 3, s = 4 → r = 3, g = 1, 4 parts each -------------------
for split in on off; do
	p0=$(passive)
	"$COLL" --leafspine "$LS" --pattern ring --channels 3 --bytes $BYTES --split $split --cc cubic \
		>"$LOG/ring-$split.json" 2>"$LOG/ring-$split.err" ||
		t_fail "collective: ring (split $split) completes" "$(cat "$LOG/ring-$split.err")"
	p1=$(passive)
	want=3
	[ $split = on ] && want=12
	d=$(delta "$p0" "$p1")
	if [ "$(echo $d)" = "$(printf "$want %.0s" $(seq 1 $N) | sed 's/ $//')" ] &&
		[ "$(jq .connections "$LOG/ring-$split.json")" = $((N * want)) ]; then
		t_pass "collective: ring, 3 channels, split $split: $want connections per host (TcpPassiveOpens +$d)"
	else
		t_fail "collective: ring split $split opens the planned connections" "passive opens per host +$d, want $want each; tool says $(jq .connections "$LOG/ring-$split.json")"
	fi
	bytes_ok "$LOG/ring-$split.json" && t_pass "collective: ring split $split: bytes received = sent" ||
		t_fail "collective: ring split $split: bytes received = sent" "$(jq -c '{bytes_sent, bytes_received}' "$LOG/ring-$split.json")"
done
# sub-flows: 4 parts of BYTES/4, parts of one logical flow share source and destination
jqe --argjson b $BYTES '[.flows[] | select(.parts == 4)] | length == 48 and
	all(.[]; .bytes == ($b / 4 | floor)) and
	(group_by(.logical) | all(.[]; length == 4 and ([.[].dst] | unique | length) == 1))' \
	"$LOG/ring-on.json" >/dev/null &&
	t_pass "collective: ring: each channel flow is 4 sub-flows of $((BYTES / 4)) B to the same successor" ||
	t_fail "collective: ring sub-flows" "$(jq -c '[.flows[0:4][] | {logical, part, parts, bytes, dst}]' "$LOG/ring-on.json")"
# sub-flows carry SO_MARK 0xdcb00000 | parts for the host's Ethereal
# program (seen in ss -e while a larger ring runs)
"$COLL" --leafspine "$LS" --pattern ring --channels 3 --bytes $((BYTES * 20)) --cc cubic >"$LOG/ring-mark.json" 2>&1 &
cpid=$!
marks=""
for _ in $(seq 1 30); do
	marks=$(ip netns exec "${FAB_HOSTS[0]}" ss -tien 2>/dev/null | grep -o 'fwmark:0x[0-9a-f]*' | sort | uniq -c | tr -s ' ' | tr '\n' ';')
	[ -n "$marks" ] && break
	sleep 0.1
done
wait $cpid
case "$marks" in
*fwmark:0xdcb00004*) t_pass "collective: sub-flows are marked SO_MARK 0xdcb00004 (4 parts; ss -e: $marks)" ;;
*) t_fail "collective: sub-flows carry the Ethereal sub-flow mark" "ss -e showed: ${marks:-no marked socket}" ;;
esac
# ring order interleaves the leaves: every hop crosses the spine layer
jqe 'all(.flows[]; (.src | sub(".*-h(?<l>[0-9]+)x.*"; "\(.l)")) != (.dst | sub(".*-h(?<l>[0-9]+)x.*"; "\(.l)")))' \
	"$LOG/ring-on.json" >/dev/null && t_pass "collective: ring hops all cross leaves" ||
	t_fail "collective: ring hops all cross leaves" "$(jq -c '[.flows[] | [.src, .dst]] | unique' "$LOG/ring-on.json")"

# --- start offsets from the seed ------------------------------------------------------
for s in 7 7 8; do
	"$COLL" --leafspine "$LS" --pattern ring --channels 2 --bytes 100000 --seed $s --jitter-us 20000 \
		>"$LOG/seed-$s.json" 2>&1
	jq -c '[.flows[].offset_us]' "$LOG/seed-$s.json" >>"$LOG/offsets.txt"
done
o1=$(sed -n 1p "$LOG/offsets.txt") o2=$(sed -n 2p "$LOG/offsets.txt") o3=$(sed -n 3p "$LOG/offsets.txt")
spread=$(echo "$o1" | jq 'max - min | floor')
if [ "$o1" = "$o2" ] && [ "$o1" != "$o3" ] && [ "$spread" -gt 5000 ] && echo "$o1" | jqe 'all(.[]; . >= 0 and . <= 20000)' >/dev/null; then
	t_pass "collective: start offsets in [0, 20 ms] are a function of the seed (spread ${spread} µs)"
else
	t_fail "collective: seeded start offsets" "seed 7: $o1; again: $o2; seed 8: $o3"
fi
# a late-starting flow's time is counted from its own start
jqe 'all(.flows[]; .ms > 0) and .completion_ms >= ([.flows[] | .offset_us / 1000 + .ms] | max) - 1' \
	"$LOG/seed-7.json" >/dev/null && t_pass "collective: flow times count from each flow's start" ||
	t_fail "collective: flow times count from each flow's start" "$(jq -c '{completion_ms}' "$LOG/seed-7.json")"

# --- over dctcp (per socket, both ends) -----------------------------------------------
if dctcp_register; then
	e0=$(dctcp_stat ecn_flows) f0=$(dctcp_stat flows)
	if "$COLL" --leafspine "$LS" --pattern a2a --bytes $BYTES --cc dctcp >"$LOG/a2a-dctcp.json" 2>"$LOG/a2a-dctcp.err" &&
		bytes_ok "$LOG/a2a-dctcp.json"; then
		e1=$(dctcp_stat ecn_flows) f1=$(dctcp_stat flows)
		[ $((e1 - e0)) = $((2 * N * 5)) ] &&
			t_pass "collective: a2a over dctcp: $((e1 - e0)) ECN sockets (both ends of $((N * 5)) connections)" ||
			t_fail "collective: a2a over dctcp negotiates ECN" \
				"ecn_flows +$((e1 - e0)) of flows +$((f1 - f0)), want $((2 * N * 5))"
	else
		t_fail "collective: a2a over dctcp" "$(cat "$LOG/a2a-dctcp.err")"
	fi
else
	t_fail "collective: register dctcp" "$DCTCP_ERR"
fi

# --- errors ------------------------------------------------------------------------------
err() { # name, expected text, args...
	local name=$1 want=$2 out rc
	shift 2
	out=$("$COLL" "$@" 2>&1 >/dev/null)
	rc=$?
	case "$out" in
	*"$want"*) [ $rc = 1 ] && t_pass "collective: $name (exit 1: ${out:0:110})" || t_fail "collective: $name" "exit $rc: $out" ;;
	*) t_fail "collective: $name" "exit $rc, message: $out" ;;
	esac
}
err "unknown netns is named" "netns 'nosuch-h9' (host 10.78.0.9) not found" \
	--hosts "nosuch-h9=10.78.0.9,${FAB_HOSTS[0]}=${FAB_HOST_IPS[0]}" --pattern a2a --bytes 1000
err "an unavailable CC is named with the available list" "congestion control 'nosuchcc' not available in netns" \
	--leafspine "$LS" --pattern a2a --bytes 1000 --cc nosuchcc
err "a host without the given address is named" "cannot listen on 10.78.0.77" \
	--hosts "${FAB_HOSTS[0]}=10.78.0.77,${FAB_HOSTS[1]}=${FAB_HOST_IPS[1]}" --pattern a2a --bytes 1000
t_expect_fail "collective: usage errors exit non-zero (no pattern)" "$COLL" --leafspine "$LS" --bytes 1000
fabric_teardown
