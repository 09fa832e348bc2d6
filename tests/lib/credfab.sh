# shellcheck shell=bash
# A two-output emulated switch for the Credence tests (tests/integ/credence.sh,
# tests/exp/credence_fabric.sh): senders s0..s4 → switch → r0 (incast
# receiver), r1 (long-flow receiver); output ports shaped to RATE with a
# TBF limit far above B, so admission is the only dropper.  Sets SWNS,
# PORTS (switch devices, in --ports order), RNS, RIP, SNS, P_IN, P_LF.
# Needs tests/lib/fabric.sh and NET (second octet of 10.NET.0.0/16).
credfab_build() {
	local i j
	fabric_make_switch sw || return 1
	SWNS=$FAB_LAST_NS
	PORTS=()
	for j in 0 1; do
		fabric_make_host "r$j" || return 1
		RNS[j]=$FAB_LAST_NS
		fabric_make_link "$SWNS" "q$j" "${RNS[j]}" "r$j" || return 1
		PORTS+=("$FAB_LAST_DEV_A")
		RIP[j]=10.$NET.$((10 + j)).1
		fabric_add_addr "$SWNS" "$FAB_LAST_DEV_A" "10.$NET.$((10 + j)).254/24" || return 1
		fabric_add_addr "${RNS[j]}" "$FAB_LAST_DEV_B" "${RIP[j]}/24" || return 1
		fabric_add_route "${RNS[j]}" "10.$NET.0.0/16" "10.$NET.$((10 + j)).254" || return 1
		fabric_shape "$SWNS" "$FAB_LAST_DEV_A" "$RATE" "$QLIMIT" || return 1
	done
	SNS=()
	for i in 0 1 2 3 4; do
		fabric_make_host "s$i" || return 1
		SNS+=("$FAB_LAST_NS")
		fabric_make_link "$FAB_LAST_NS" "h$i" "$SWNS" "p$i" || return 1
		PORTS+=("$FAB_LAST_DEV_B")
		fabric_add_addr "$FAB_LAST_NS" "$FAB_LAST_DEV_A" "10.$NET.$((20 + i)).1/24" || return 1
		fabric_add_addr "$SWNS" "$FAB_LAST_DEV_B" "10.$NET.$((20 + i)).254/24" || return 1
		fabric_add_route "$FAB_LAST_NS" "10.$NET.0.0/16" "10.$NET.$((20 + i)).254" || return 1
	done
	P_IN=0	# q0 → r0, first in PORTS
	P_LF=1
	for i in 0 1 2 3 4; do
		fabric_exec "${SNS[i]}" ping -c1 -W2 -q "${RIP[0]}" >/dev/null 2>&1 &&
			fabric_exec "${SNS[i]}" ping -c1 -W2 -q "${RIP[1]}" >/dev/null 2>&1 || return 1
	done
}
