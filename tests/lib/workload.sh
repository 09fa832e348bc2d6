# The workload harness for experiments (docs/workload.md): the traffic tool
# (tests/tools/workload.c) run on the fabric built by tests/lib/fabric.sh,
# one CSV + JSON per run in one schema, one plotting path.
#
#   source tests/lib/fabric.sh; source tests/lib/workload.sh
#   FAB_RTO_MIN_MS=10 fabric_leafspine 2 2 2 1000 1000000
#   wl_init out/myexp
#   for cc in cubic dctcp; do
#           wl_run "$cc-50" --cc "$cc" --cdf websearch --load 0.5 --flows 500
#   done
#   wl_table; wl_plot "websearch, 50 % load"
#
# wl_run derives from the fabric what the tool needs to know about it:
#   dumbbell   senders FAB_SENDERS -> the receiver; the bottleneck is the
#              receiver's link: rate and capacity FAB_RATE_MBIT, 1 shaped hop
#   leaf-spine every host to every host on another leaf (all-to-all across
#              leaves); a path crosses a leaf uplink and a spine downlink,
#              2 shaped hops at FAB_RATE_MBIT (4 with FAB_LS_HOST_MBIT, at
#              the lower rate); the load is relative to the L·S uplinks
# plus the TBF bucket (FAB_TBF_BURST), the hosts' MTU (FAB_MTU) and the
# routes' rto_min (FAB_RTO_MIN_MS), all recorded in the summary.
# Options given to wl_run come after these and override them.
# shellcheck shell=bash

WL_OUT=""
WL_TOOL=""

# wl_init OUTDIR: where the runs go (created); the tool must be built.
wl_init() {
	WL_OUT=${1:?wl_init OUTDIR}
	WL_TOOL=${WL_TOOL_BIN:-${BUILD:-build}/tools/workload}
	[ -x "$WL_TOOL" ] || { echo "workload: $WL_TOOL not built (make)" >&2; return 1; }
	mkdir -p "$WL_OUT" || return 1
}

# wl_fabric_args: the tool's options describing the fabric built last, one
# per line.
wl_fabric_args() {
	local i s r rate hops=1 cap leaf
	if [ -n "${FAB_LS_LEAVES:-}" ] && [ "${#FAB_HOSTS[@]}" -gt 0 ] 2>/dev/null; then
		s="" r=""
		for ((i = 0; i < ${#FAB_HOSTS[@]}; i++)); do
			leaf=${FAB_HOST_LEAF[i]}
			s+="${s:+,}${FAB_HOSTS[i]}@$leaf"
			r+="${r:+,}${FAB_HOSTS[i]}=${FAB_HOST_IPS[i]}@$leaf"
		done
		rate=$FAB_RATE_MBIT hops=2
		if [ -n "${FAB_LS_HOST_MBIT:-}" ]; then
			hops=4
			[ "$FAB_LS_HOST_MBIT" -lt "$rate" ] && rate=$FAB_LS_HOST_MBIT
		fi
		cap=$((FAB_LS_LEAVES * FAB_LS_SPINES * FAB_RATE_MBIT))
		printf '%s\n' --senders "$s" --receivers "$r" --tag fabric=leafspine \
			--tag "leafspine=${FAB_LS_LEAVES}x${FAB_LS_SPINES}x${FAB_LS_HOSTS}"
	elif [ -n "${FAB_RECV:-}" ]; then
		s=$(IFS=,; echo "${FAB_SENDERS[*]}")
		rate=$FAB_RATE_MBIT cap=$FAB_RATE_MBIT
		printf '%s\n' --senders "$s" --receivers "$FAB_RECV=$FAB_RECV_IP" --tag fabric=dumbbell \
			--tag "dumbbell=${#FAB_SENDERS[@]}"
	else
		echo "workload: no fabric built (fabric_dumbbell or fabric_leafspine first)" >&2
		return 1
	fi
	printf '%s\n' --rate-mbit "$rate" --capacity-mbit "$cap" --hops "$hops" \
		--burst-bytes "${FAB_TBF_BURST:-16384}" --mtu "${FAB_MTU:-1500}" --tag "buffer_bytes=${FAB_BUF_BYTES:-}"
	[ -n "${FAB_RTO_MIN_MS:-}" ] && printf '%s\n' --rto-min-ms "$FAB_RTO_MIN_MS"
	return 0
}

# wl_run NAME [OPTIONS...]: one run of the tool on the fabric; writes
# $WL_OUT/NAME.csv and $WL_OUT/NAME.json (stderr in NAME.err). Returns the
# tool's exit code (1: a flow unfinished, the files still written).
wl_run() {
	local name=${1:?wl_run NAME [OPTIONS...]} rc
	shift
	local -a fab
	[ -n "$WL_OUT" ] || { echo "workload: wl_init first" >&2; return 2; }
	mapfile -t fab < <(wl_fabric_args) || return 1
	[ "${#fab[@]}" -gt 0 ] || return 1
	"$WL_TOOL" "${fab[@]}" --tag "run=$name" "$@" --csv "$WL_OUT/$name.csv" --json "$WL_OUT/$name.json" \
		2>"$WL_OUT/$name.err"
	rc=$?
	[ $rc = 0 ] || echo "workload: run $name exited $rc: $(tail -n 2 "$WL_OUT/$name.err" | tr '\n' ' ')" >&2
	return $rc
}

# wl_table [JSON...]: FCT slowdown p50/p99/p99.9 per size bin and run (all
# runs in $WL_OUT by default), background flows.
wl_table() {
	local f
	[ $# -gt 0 ] || set -- "$WL_OUT"/*.json
	{
		printf 'run\tcc\tload\tflows\tshort p50/p99/p99.9\tmedium p50/p99/p99.9\tlong p50/p99/p99.9\n'
		for f in "$@"; do
			jq -r 'def r: if . == null then "-" else (. * 100 | round / 100 | tostring) end;
				.params as $p | (.classes.bg.flows > 0) as $bg | (if $bg then .classes.bg else .classes.all end) as $c |
				[$p.tags.run // "-", ($p.cc.bg // $p.cc.incast // "default"), $p.load, $c.flows] +
				[$c.bins[] | "\(.slowdown.p50 | r)/\(.slowdown.p99 | r)/\(.slowdown.p999 | r)"] | @tsv' "$f"
		done
	} | column -t -s $'\t'
}

# wl_plot [TITLE]: the PNGs of every run in $WL_OUT (tests/exp/plot-workload).
wl_plot() {
	tests/exp/plot-workload -o "$WL_OUT" -t "${1:-}" "$WL_OUT"/*.json
}

# wl_ecn_switches K_BYTES [BUF_BYTES]: dcbpf's admission switch (dynamic
# thresholds, α = 1, buffer BUF_BYTES, default FAB_BUF_BYTES) marking CE
# above K_BYTES of queue on every switch namespace of the fabric (the
# dumbbell's switch; every leaf and spine), so ECN congestion controls
# (DCTCP) see marks; taken down at teardown. Keep the fabric's TBF limit
# above BUF_BYTES so only the switch drops.
WL_SWS=()
wl_ecn_switches() {
	local k=${1:?wl_ecn_switches K_BYTES [BUF_BYTES]} b=${2:-${FAB_BUF_BYTES:-1000000}} ns name ports
	local -a nss
	WL_DCBPF=${BUILD:-build}/dcbpf WL_PIN=/sys/fs/bpf/dcbpf-wl$$
	[ -x "$WL_DCBPF" ] || { echo "workload: $WL_DCBPF not built (make)" >&2; return 1; }
	if [ -n "${FAB_LS_LEAVES:-}" ] && [ "${#FAB_HOSTS[@]}" -gt 0 ] 2>/dev/null; then
		nss=("${FAB_LEAVES[@]}" "${FAB_SPINES[@]}")
	else
		nss=("$FAB_SWITCH")
	fi
	fabric_on_exit _wl_switches_down
	for ns in "${nss[@]}"; do
		name="w${ns##*-}$$"
		name=${name:0:15}
		ports=$(ip -n "$ns" -o link show | awk -F': ' '$2 != "lo" { sub(/@.*/, "", $2); print $2 }' | paste -sd, -)
		"$WL_DCBPF" --pin-dir "$WL_PIN" switch up "$name" --netns "$ns" --ports "$ports" \
			--rate-mbps "$FAB_RATE_MBIT" alg=dt alpha=1 buffer_bytes="$b" ecn_k_bytes="$k" >/dev/null ||
			{ echo "workload: switch up on $ns failed" >&2; return 1; }
		WL_SWS+=("$name")
	done
}

_wl_switches_down() {
	local s
	for s in "${WL_SWS[@]}"; do "$WL_DCBPF" --pin-dir "$WL_PIN" switch down "$s" >/dev/null 2>&1; done
	WL_SWS=()
	rm -rf "$WL_PIN" 2>/dev/null
	return 0
}
