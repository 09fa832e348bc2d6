# A rotor fabric for the reconfigurable-network experiments (tests/exp/
# rdcn_ptcp.sh, tests/exp/rdcn_mars.sh): fabric_rotor's ToRs and circuit
# switch, the per-destination VOQs of `dcbpf rdcn voq` run per measurement,
# and INT's transit hop on a ToR uplink reading the circuit switch's own
# schedule maps, so the rate it stamps follows the slot (docs/rdcn.md,
# "INT's rate following the slot").  Sourced after tests/lib/fabric.sh.
#
#   rdfab_up N SCHED PIN_DIR              # fabric_rotor + ip_forward on the ToRs
#   rdfab_voq_start OUT_JSON MS VOQ_BYTES CIRCUIT_MBPS   # the gates, in the background
#   rdfab_voq_stop                        # SIGTERM, wait (the VOQs go)
#   rdfab_int_tor DCBPF_PIN I CIRCUIT_MBPS   # ToR I's uplink: a switch with the transit hop
#
# Sets RDFAB_OCS_DIR (the circuit switch's pins), RDFAB_VOQ_PID, RDFAB_ERR.
# shellcheck shell=bash

RDFAB_OCS_DIR="" RDFAB_VOQ_PID="" RDFAB_ERR="" RDFAB_SWS=()
declare -F wait_until >/dev/null || source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

rdfab_up() {
	local n=$1 sched=$2 pin=$3 i
	fabric_rotor "$n" "$sched" "$pin" || { RDFAB_ERR="fabric_rotor failed"; return 1; }
	fabric_on_exit "rmdir $pin 2>/dev/null"
	RDFAB_OCS_DIR="$pin/rdcn/$FAB_OCS"
	for ((i = 0; i < n; i++)); do
		# relaying ToRs (Mars' two-hop routes, the receiver host behind a
		# ToR) forward; a frame relayed out of the interface it came in by
		# is what a rotor ToR does, no redirect is due; no route metrics
		# carried from one measurement to the next
		ip netns exec "${FAB_TORS[i]}" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.send_redirects=0 \
			net.ipv4.conf.default.send_redirects=0 net.ipv4.tcp_no_metrics_save=1
		# the hosts' MTU is locked below the links' (room for INT's option)
		ip -n "${FAB_TORS[i]}" route show | awk '{ print $1 }' | while read -r r; do
			ip -n "${FAB_TORS[i]}" route change "$r" dev "${FAB_ID}t${i}u0" src "10.77.$i.1" mtu lock "${FAB_MTU:-1500}"
		done
	done
}

# rdfab_voq_start OUT_JSON MS VOQ_BYTES CIRCUIT_MBPS: `dcbpf rdcn voq` on
# every ToR's uplink for MS ms (guard RDFAB_GUARD_US, default 1000: a
# loaded 2-core machine), back once the VOQs and the classifier are in
# place.  Its classifier is attached after any INT program on the uplink.
rdfab_voq_start() {
	local out=$1 ms=$2 bytes=$3 mbps=$4 ups=() i
	for ((i = 0; i < ${#FAB_TORS[@]}; i++)); do ups+=(--uplink "${FAB_TORS[i]}/${FAB_ID}t${i}u0=$i/0"); done
	rm -f "$out.ready"
	fabric_bg "" "${FAB_DCBPF:-${BUILD:-build}/dcbpf}" --pin-dir "$FAB_RD_PIN" --json rdcn voq --netns "$FAB_OCS" \
		"${ups[@]}" --circuit-mbps "$mbps" --guard-us "${RDFAB_GUARD_US:-1000}" --voq-bytes "$bytes" \
		--ms "$ms" --ready "$out.ready" >"$out" 2>"$out.err"
	RDFAB_VOQ_PID=$FAB_LAST_PID
	wait_until 10 test -e "$out.ready" || { RDFAB_ERR="rdcn voq not ready: $(head -c 300 "$out.err")"; return 1; }
}

rdfab_voq_stop() {
	[ -n "$RDFAB_VOQ_PID" ] || return 0
	kill -TERM "$RDFAB_VOQ_PID" 2>/dev/null
	wait "$RDFAB_VOQ_PID" 2>/dev/null
	RDFAB_VOQ_PID=""
}

# _rdfab_le BYTES VALUE: VALUE as BYTES little-endian hex bytes for bpftool.
_rdfab_le() {
	local n=$1 v=$2 i out=""
	for ((i = 0; i < n; i++)); do out+=$(printf ' %02x' $(((v >> (8 * i)) & 255))); done
	echo "$out"
}

# rdfab_int_tor DCBPF_PIN I CIRCUIT_MBPS: INT's transit hop on ToR I's
# uplink, as a one-port switch of dcbpf (its queue tracker gives the hop's
# queue length and bytes sent: the uplink's root qdisc, i.e. its VOQs
# together), loaded over the circuit switch's schedule maps (a second pin
# of each in the switch's pin directory, which the transit object's
# by-name pinning then reuses) and with the uplink's dc_rd_tor entry
# (circuit rate while the circuit to the frame's next hop is up, 0 — no
# packet network — otherwise).  Call after the host's own INT programs on
# that uplink (`dcbpf int attach`): the transit hop must run after the
# source that reserves the slots.  Undone at teardown.
rdfab_int_tor() {
	local pin=$1 i=$2 mbps=$3 name="rdt$2" dev="${FAB_ID}t$2u0" sw ifx m d
	d=("${BUILD:-build}/dcbpf" --pin-dir "$pin")
	sw="$pin/sw/$name"
	"${d[@]}" switch up --netns "${FAB_TORS[i]}" --ports "$dev" --rate-mbps "$mbps" "$name" alg=cs \
		buffer_bytes=64000000 >/dev/null || { RDFAB_ERR="switch up on $dev failed"; return 1; }
	RDFAB_SWS+=("$name")
	[ ${#RDFAB_SWS[@]} = 1 ] && fabric_on_exit "_rdfab_int_down $(printf '%q' "$pin")"
	for m in dc_rd_flip dc_rd_cfg dc_rd_sched dc_rd_mac dc_rd_tor; do
		[ -e "$sw/$m" ] || bpftool map pin pinned "$RDFAB_OCS_DIR/$m" "$sw/$m" ||
			{ RDFAB_ERR="pinning $m for $name failed"; return 1; }
	done
	ifx=$(ip -n "${FAB_TORS[i]}" -o link show dev "$dev" | cut -d: -f1)
	# struct dc_rd_tor: u16 tor, u16 up, u32 circuit_mbps, u32 packet_mbps, u32 pad
	# shellcheck disable=SC2046  # the hex bytes are separate words
	bpftool map update pinned "$sw/dc_rd_tor" key hex $(_rdfab_le 4 "$ifx") \
		value hex $(_rdfab_le 2 "$i") $(_rdfab_le 2 0) $(_rdfab_le 4 "$mbps") $(_rdfab_le 4 0) $(_rdfab_le 4 0) ||
		{ RDFAB_ERR="dc_rd_tor entry for $dev failed"; return 1; }
	"${d[@]}" int switch attach "$name" >/dev/null || { RDFAB_ERR="int switch attach $name failed"; return 1; }
}

# transit hops filled on the ToR switches so far (dc_int_xstats summed)
rdfab_int_filled() {
	local pin=$1 name sum=0 v
	for name in "${RDFAB_SWS[@]}"; do
		v=$(bpftool -j map dump pinned "$pin/sw/$name/dc_int_xstats" 2>/dev/null |
			jq '[.. | objects | .transit_filled? | numbers] | max // 0' 2>/dev/null)
		sum=$((sum + ${v:-0}))
	done
	echo $sum
}

_rdfab_int_down() {
	local pin=$1 name d
	d=("${BUILD:-build}/dcbpf" --pin-dir "$pin")
	for name in "${RDFAB_SWS[@]}"; do
		"${d[@]}" int switch detach "$name"
		rm -f "$pin/sw/$name"/dc_rd_*
		"${d[@]}" switch down "$name"
	done >/dev/null 2>&1
	RDFAB_SWS=()
}
