# Integration: a router on the path drops IPv4 packets that carry options.
#
#   s0 --[10G]-- sw1 --[TBF R]-- rt --- rx
#
# sw1 is a dcbpf switch with the INT transit hop; rt is a plain router
# whose ingress drops every IPv4 packet with ihl > 5 (a classic-BPF
# cls_bpf filter, the way a router that refuses IP options behaves).
# Through rt passing options, PowerTCP runs on INT; once rt drops them, a
# destination with give-up (int dst add --giveup-ms) stops tagging flows
# whose probes get no echo: the flows move data on the θ law, and the
# counters say so (src_gave_up, src_int_off, theta_fallback).
# host-suite: the give-up and its echo are proven on 6.1 by prog/test_int_prog, the CCs'
# INT and θ paths by integ/cc.sh and integ/int.sh; this adds a router and long flows.
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh
source tests/lib/dcbpfd.sh

mkdir -p "$OUT"
export FAB_INT_ROOM=36
R=1000 FLOW_T=3 GIVEUP_MS=20
# Under emulation the CPU is the bottleneck and RTTs are milliseconds.
[ "${DCBPF_VM:-0}" = 1 ] && R=100 FLOW_T=5 GIVEUP_MS=100

build_path() {
	fabric_init || return 1
	fabric_make_host s0 && S0=$FAB_LAST_NS || return 1
	fabric_make_switch sw1 && SW1=$FAB_LAST_NS || return 1
	fabric_make_switch rt && RT=$FAB_LAST_NS || return 1
	fabric_make_host rx && RX=$FAB_LAST_NS || return 1
	fabric_make_link "$S0" h "$SW1" p && S0_DEV=$FAB_LAST_DEV_A SW1_P=$FAB_LAST_DEV_B || return 1
	fabric_make_link "$SW1" u "$RT" a && SW1_U=$FAB_LAST_DEV_A RT_A=$FAB_LAST_DEV_B || return 1
	fabric_make_link "$RT" b "$RX" x && RT_B=$FAB_LAST_DEV_A RX_DEV=$FAB_LAST_DEV_B || return 1
	fabric_host_dev "$S0" "$S0_DEV" || return 1
	fabric_add_addr "$S0" "$S0_DEV" 10.77.1.1/24 && fabric_add_addr "$SW1" "$SW1_P" 10.77.1.254/24 &&
		fabric_add_addr "$SW1" "$SW1_U" 10.77.100.1/24 && fabric_add_addr "$RT" "$RT_A" 10.77.100.2/24 &&
		fabric_add_addr "$RT" "$RT_B" 10.77.0.254/24 && fabric_add_addr "$RX" "$RX_DEV" 10.77.0.1/24 || return 1
	fabric_add_route "$S0" 10.77.0.0/16 10.77.1.254 && fabric_add_route "$RX" 10.77.0.0/16 10.77.0.254 &&
		FAB_ROUTE_CLAMP=0 fabric_add_route "$SW1" 10.77.0.0/24 10.77.100.2 &&
		FAB_ROUTE_CLAMP=0 fabric_add_route "$RT" 10.77.1.0/24 10.77.100.1 || return 1
	fabric_shape "$SW1" "$SW1_U" $R 4000000
}

# The router's filter, classic BPF (no object to build, no action module
# needed): at TC egress the IPv4 header is at offset 14; ihl = 5 returns 0
# (no match: the default class), anything else -1 (match: classid 1:2,
# whose bfifo of 0 bytes drops everything).
#   ldb [14]; and #0xf; jeq #5, +1; ret #-1; ret #0
OPTDROP='5,48 0 0 14,84 0 0 15,21 1 0 5,6 0 0 4294967295,6 0 0 0'
router_drop() { # on both ports of rt, both directions
	local d
	for d in "$RT_A" "$RT_B"; do
		tc -n "$RT" qdisc add dev "$d" root handle 1: htb default 1 &&
			tc -n "$RT" class add dev "$d" parent 1: classid 1:1 htb rate 10gbit &&
			tc -n "$RT" class add dev "$d" parent 1: classid 1:2 htb rate 10gbit &&
			tc -n "$RT" qdisc add dev "$d" parent 1:2 handle 2: bfifo limit 0 &&
			tc -n "$RT" filter add dev "$d" parent 1: protocol ip prio 1 bpf bytecode "$OPTDROP" classid 1:2 ||
			return 1
	done
}
router_dropped() { # packets the router dropped (both drop leaves)
	local d n=0 v
	for d in "$RT_A" "$RT_B"; do
		v=$(tc -n "$RT" -s -j qdisc show dev "$d" | jq '[.[] | select(.handle == "2:") | .drops] | add // 0')
		n=$((n + v))
	done
	echo $n
}

if ! build_path; then t_fail "optdrop: path" "fabric could not be built"; exit 1; fi
dcbpfd_start "base_rtt_us = 80" "host_bw_mbps = $R" || { t_fail "optdrop: dcbpfd" "$DCBPFD_ERR"; exit 1; }
D=("$BUILD/dcbpf" --pin-dir "$DCBPFD_PIN")
UP=1
down() {
	[ "$UP" = 1 ] || return 0
	UP=0
	"${D[@]}" int detach --netns "$S0" "$S0_DEV"; "${D[@]}" int detach --netns "$RX" "$RX_DEV"
	"${D[@]}" int switch detach sw1; "${D[@]}" switch down sw1
} >/dev/null 2>&1
fabric_on_exit down

t_check "optdrop: switch sw1 up" "${D[@]}" switch up --netns "$SW1" --ports "$SW1_P,$SW1_U" --rate-mbps 10000,$R sw1 alg=cs
t_check "optdrop: transit on sw1" "${D[@]}" int switch attach sw1
t_check "optdrop: host programs on s0" "${D[@]}" int attach --netns "$S0" "$S0_DEV"
t_check "optdrop: host programs on rx" "${D[@]}" int attach --netns "$RX" "$RX_DEV"
t_check "optdrop: destination with give-up" "${D[@]}" int dst add 10.77.0.1/32 --giveup-ms $GIVEUP_MS
lst=$("${D[@]}" int dst list 2>&1)
grep -q "^10.77.0.1/32 slots 4 giveup_ms $GIVEUP_MS\$" <<<"$lst" && t_pass "optdrop: dst list shows the give-up" ||
	t_fail "optdrop: dst list shows the give-up" "$lst"
t_expect_fail "optdrop: give-up above 60 s refused" "${D[@]}" int dst add 10.77.0.1/32 --giveup-ms 60001

fabric_bg "$RX" iperf3 -s -p 5201
fabric_wait_port "$RX" 5201
# The counters as `dcbpf status --json` prints them.
ctr() { "${D[@]}" status --json | jq ".counters.$1.$2 // empty"; }
istat() { bpftool map dump pinned "$DCBPFD_PIN/dc_int_stats" -j | jq ".[0].formatted.value.$1"; }
flow() { # NAME SECONDS: one PowerTCP flow; prints Mbit/s received
	fabric_exec "$S0" iperf3 -c 10.77.0.1 -p 5201 -t "$2" -C powertcp -J >"$OUT/optdrop_$1.json" 2>&1
	jq '.end.sum_received.bits_per_second / 1e6 | floor' "$OUT/optdrop_$1.json" 2>/dev/null || echo 0
}

# --- options pass: the probe is echoed, the flow runs on INT ------------
"${D[@]}" status --json | jqe '.counters.powertcp.int_acks' >/dev/null ||
	t_fail "optdrop: status --json has counters.powertcp.int_acks" "$("${D[@]}" status --json | jq -c '.counters | keys')"
ia0=$(ctr powertcp int_acks) gu0=$(istat src_gave_up)
mbps=$(flow pass 1)
ia1=$(ctr powertcp int_acks) gu1=$(istat src_gave_up)
# An RTO on a healthy path may look like a lost probe once (docs/int.md);
# what matters is that the flow ran on telemetry.
if [ "$((ia1 - ia0))" -gt 100 ] && [ "$((gu1 - gu0))" -le 2 ]; then
	t_pass "optdrop: options pass: INT law ($((ia1 - ia0)) INT ACKs, $((gu1 - gu0)) give-ups, $mbps Mbit/s)"
else
	t_fail "optdrop: options pass: INT law" "int_acks $ia0 → $ia1, src_gave_up $gu0 → $gu1, $mbps Mbit/s"
fi

# --- the router drops options: give-up, θ law, no stall ------------------
t_check "optdrop: router drops IP options" router_drop
fb0=$(ctr powertcp theta_fallback) gu0=$(istat src_gave_up) off0=$(istat src_int_off) rd0=$(router_dropped)
mbps=$(flow drop $FLOW_T)
fb1=$(ctr powertcp theta_fallback) gu1=$(istat src_gave_up) off1=$(istat src_int_off) rd1=$(router_dropped)
[ "$((rd1 - rd0))" -gt 0 ] && t_pass "optdrop: the router dropped $((rd1 - rd0)) packets with options" ||
	t_fail "optdrop: the router dropped packets with options" "$rd0 → $rd1"
# iperf3's control and data connections each give up at least once.
[ "$((gu1 - gu0))" -ge 2 ] && [ "$((off1 - off0))" -gt 100 ] &&
	t_pass "optdrop: flows gave up INT ($((gu1 - gu0)) give-ups, $((off1 - off0)) segments without it)" ||
	t_fail "optdrop: flows gave up INT" "src_gave_up $gu0 → $gu1, src_int_off $off0 → $off1"
[ "$((fb1 - fb0))" -gt 100 ] && t_pass "optdrop: powertcp fell back to θ ($((fb1 - fb0)) ACKs)" ||
	t_fail "optdrop: powertcp fell back to θ" "theta_fallback $fb0 → $fb1"
# A floor against a stall, not a target: without give-up every data
# segment is dropped and the flow moves nothing.
[ "${mbps:-0}" -ge $((R / 10)) ] && t_pass "optdrop: the flow did not stall ($mbps of $R Mbit/s)" ||
	t_fail "optdrop: the flow did not stall" "${mbps:-0} Mbit/s; $(head -c 300 "$OUT/optdrop_drop.json")"
txt=$("${D[@]}" int status 2>&1)
v=$(grep -m1 '^hosts:' <<<"$txt" | grep -oE 'src_gave_up [0-9]+' | cut -d' ' -f2)
[ "${v:-0}" -ge 2 ] && t_pass "optdrop: dcbpf int status prints src_gave_up ($v)" ||
	t_fail "optdrop: dcbpf int status prints src_gave_up" "$(head -c 600 <<<"$txt")"

down
dcbpfd_stop
