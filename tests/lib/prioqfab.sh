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
	RIP=10.79.10.1
	for i in 0 1; do
		fabric_exec "${SNS[i]}" ping -c1 -W2 -q "$RIP" >/dev/null 2>&1 ||
			{ t_fail "$tag: fabric reachable" "s$i cannot reach r0"; return 1; }
	done
	plist=$(IFS=,; echo "${PORTS[*]}")
}

pq_cleanup() {
	"$DCBPF" --pin-dir "$PIN" switch down "$SW" >/dev/null 2>&1
	rm -rf "$PIN"
}

pq_build() {
	local i
	fabric_init || return 1
	fabric_on_exit pq_cleanup
	fabric_make_switch sw || return 1
	SWNS=$FAB_LAST_NS
	fabric_make_host r0 || return 1
	RNS=$FAB_LAST_NS
	fabric_make_link "$SWNS" q0 "$RNS" r0 || return 1
	OUTDEV=$FAB_LAST_DEV_A
	PORTS=("$OUTDEV")
	fabric_add_addr "$SWNS" "$OUTDEV" 10.79.10.254/24 || return 1
	fabric_add_addr "$RNS" "$FAB_LAST_DEV_B" 10.79.10.1/24 || return 1
	fabric_add_route "$RNS" 10.79.0.0/16 10.79.10.254 || return 1
	fabric_shape "$SWNS" "$OUTDEV" "$RATE" 20000000 || return 1
	SNS=()
	for i in 0 1; do
		fabric_make_host "s$i" || return 1
		SNS+=("$FAB_LAST_NS")
		fabric_make_link "$FAB_LAST_NS" "h$i" "$SWNS" "p$i" || return 1
		PORTS+=("$FAB_LAST_DEV_B")
		fabric_add_addr "$FAB_LAST_NS" "$FAB_LAST_DEV_A" "10.79.$((20 + i)).1/24" || return 1
		fabric_add_addr "$SWNS" "$FAB_LAST_DEV_B" "10.79.$((20 + i)).254/24" || return 1
		fabric_add_route "$FAB_LAST_NS" 10.79.0.0/16 "10.79.$((20 + i)).254" || return 1
	done
}
