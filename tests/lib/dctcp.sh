# DCTCP registration for tests and experiments (bpf/dctcp.bpf.c).
#   dctcp_register     registers build/dctcp.bpf.o as "dctcp" unless a
#                      "dctcp" is already available (then it is used and
#                      left alone); sets DCTCP_ERR on failure
#   dctcp_unregister   undoes only what dctcp_register did (idempotent);
#                      callers run it at exit (fabric_on_exit or a trap)
#   dctcp_stat FIELD   a counter of dc_dctcp_stat (maps/dctcp.h), summed over CPUs
# CC names are global to the machine: hold /tmp/dcbpf-netns.lock around
# anything that registers one.  Never made a namespace default here.
# shellcheck shell=bash

DCTCP_OWNED=0
DCTCP_ERR=""

dctcp_available() { grep -qw dctcp /proc/sys/net/ipv4/tcp_available_congestion_control; }

dctcp_register() {
	local obj=${BUILD:-build}/dctcp.bpf.o out
	dctcp_available && return 0
	[ -r "$obj" ] || { DCTCP_ERR="$obj not built (make)"; return 1; }
	if ! out=$(bpftool struct_ops register "$obj" 2>&1); then
		DCTCP_ERR="bpftool struct_ops register $obj: $out"
		return 1
	fi
	DCTCP_OWNED=1
	dctcp_available || { DCTCP_ERR="registered, but dctcp is not in tcp_available_congestion_control"; return 1; }
}

dctcp_unregister() {
	[ "$DCTCP_OWNED" = 1 ] || return 0
	bpftool struct_ops unregister name dc_dctcp >/dev/null 2>&1
	DCTCP_OWNED=0
}

dctcp_stat() {
	# The newest map of that name is the current registration's: sockets of
	# an earlier one keep its struct_ops, and with it its map, alive until
	# they close.  Per-CPU copies: the sum.
	local id
	id=$(bpftool map show -j 2>/dev/null | jq '[.[] | select(.name == "dc_dctcp_stat") | .id] | max // empty')
	[ -n "$id" ] || { echo 0; return; }
	bpftool map dump id "$id" -j 2>/dev/null |
		jq -r "[.[0].formatted.values[]?.value.$1] | add // 0"
}
