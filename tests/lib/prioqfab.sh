# The priority-queue fabric shared by tests/integ/prioq.sh and slytherin.sh:
# s0 and s1 → one switch namespace → r0, every switch port shaped to RATE
# Mbit/s (one 1500-byte frame takes PKT_US), addresses in 10.79.0.0/16.
# shellcheck shell=bash
# SC2034: the variables are the callers'.  SC2317: cleanup runs from the EXIT trap.
# shellcheck disable=SC2034,SC2317

# pq_fabric TAG: sets DCBPF, RATE, SLACK_US, PKT_US, SW, PIN, LOG ($OUT/TAG),
# SWNS, RNS, OUTDEV, SNS[], PORTS[], RIP and plist; builds the fabric (torn
# down, with the switch named SW, at exit) and checks both senders reach r0.
# On failure: a FAIL line named after TAG, and a non-zero return.
pq_fabric() {
	local tag=$1 i
	DCBPF="$BUILD/dcbpf"
	RATE=20			# Mbit/s of every switch port
	SLACK_US=900		# scheduling noise of a loaded 2-core host
	# Under emulation (vm/run sets DCBPF_VM=1) a ping's own path costs far more
	# and varies more, and the emulated sender cannot keep a 20 Mbit/s port
	# backlogged (one run: low queue 17 kB on average): 5 Mbit/s there.
	[ "${DCBPF_VM:-0}" = 1 ] && SLACK_US=5000 RATE=5
	PKT_US=$((1500 * 8 / RATE))	# one 1500-byte frame at RATE
	SW=${tag:0:3}$$
	SW=${SW:0:15}
	PIN=/sys/fs/bpf/dcbpf-${tag:0:3}$$
	LOG="$OUT/$tag"
	mkdir -p "$LOG"
	pq_build || { t_fail "$tag: fabric" "builder failed"; return 1; }
	pq_reach "$tag"
}

# pq_reach TAG: RIP (r0 in PQ_NET) and plist (PORTS joined by commas); both
# senders must reach r0, else a FAIL line named after TAG and a non-zero return.
pq_reach() {
	local i
	RIP=${PQ_NET:-10.79}.10.1
	for i in 0 1; do
		fabric_exec "${SNS[i]}" ping -c1 -W2 -q "$RIP" >/dev/null 2>&1 ||
			{ t_fail "$1: fabric reachable" "s$i cannot reach r0"; return 1; }
	done
	plist=$(IFS=,; echo "${PORTS[*]}")
}

pq_cleanup() {
	"$DCBPF" --pin-dir "$PIN" switch down "$SW" >/dev/null 2>&1
	rm -rf "$PIN"
}

# pq_build: the fabric alone (pq_fabric's, and tests/integ/pfc.sh's with its
# own addresses and wires).  PQ_NET (10.79) is the /16; PQ_ON_EXIT
# (pq_cleanup) runs at exit; PQ_LINK I (pq_link) joins sender I, SNS[I], to
# the switch as device pI and sets FAB_LAST_DEV_A/B; PQ_PORT_HOOK DEV, if
# set, runs on each sender's switch port.
pq_build() {
	local i net=${PQ_NET:-10.79}
	fabric_init || return 1
	fabric_on_exit "${PQ_ON_EXIT:-pq_cleanup}"
	fabric_make_switch sw || return 1
	SWNS=$FAB_LAST_NS
	fabric_make_host r0 || return 1
	RNS=$FAB_LAST_NS
	fabric_make_link "$SWNS" q0 "$RNS" r0 || return 1
	OUTDEV=$FAB_LAST_DEV_A
	PORTS=("$OUTDEV")
	fabric_add_addr "$SWNS" "$OUTDEV" "$net.10.254/24" || return 1
	fabric_add_addr "$RNS" "$FAB_LAST_DEV_B" "$net.10.1/24" || return 1
	fabric_add_route "$RNS" "$net.0.0/16" "$net.10.254" || return 1
	fabric_shape "$SWNS" "$OUTDEV" "$RATE" 20000000 || return 1
	SNS=()
	for i in 0 1; do
		fabric_make_host "s$i" || return 1
		SNS+=("$FAB_LAST_NS")
		"${PQ_LINK:-pq_link}" "$i" || return 1
		PORTS+=("$FAB_LAST_DEV_B")
		fabric_add_addr "${SNS[i]}" "$FAB_LAST_DEV_A" "$net.$((20 + i)).1/24" || return 1
		fabric_add_addr "$SWNS" "$FAB_LAST_DEV_B" "$net.$((20 + i)).254/24" || return 1
		fabric_add_route "${SNS[i]}" "$net.0.0/16" "$net.$((20 + i)).254" || return 1
		[ -z "${PQ_PORT_HOOK:-}" ] || "$PQ_PORT_HOOK" "$FAB_LAST_DEV_B" || return 1
	done
}

pq_link() { fabric_make_link "${SNS[$1]}" "h$1" "$SWNS" "p$1"; }
