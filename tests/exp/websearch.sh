#!/usr/bin/env bash
# Example experiment of the workload harness (docs/workload.md): web-search
# flow sizes at a load on a leaf–spine of 2 leaves × 2 spines × 2 hosts
# (TBF per uplink and downlink), all-to-all across the leaves, rto_min
# 10 ms, CUBIC and DCTCP (ECN marks from dcbpf's switch on every leaf and
# spine). Writes per load $OUT/load<L>/{cubic,dctcp}.{csv,json},
# slowdown.png, cdf.png and table.txt.
#
#   sudo tests/exp/websearch.sh            # SHORT=1: one load, 300 flows, ~1 min
#   sudo SHORT=0 tests/exp/websearch.sh    # loads 0.2 0.4 0.6 0.8, 2000 flows each
#   SHORT=smoke                              # the make-check mode: cubic, 30 flows
#
# Env: RATE (Mbit/s of every uplink and downlink, 250: the load is relative
# to the 4 uplinks, and at RATE 1000, 2 Gbit/s offered, this 2-core machine
# carried 670 Mbit/s and flows waited for the CPU, not the fabric), LOADS,
# FLOWS, SCALE (sizes × SCALE; default RATE / 25000, the papers' 25 Gbit/s
# hosts scaled to RATE), CCS ("cubic dctcp"),
# INCAST (PERIOD_MS:BYTES:FANIN on top, none), K (ECN threshold, 30000 B),
# B (switch buffer, 1000000 B), SEED (1), BUILD, OUT (out/websearch).
# Run it alone (it holds /tmp/dcbpf-suite.lock while the fabric is up).
# shellcheck shell=bash
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
OUT=${OUT:-out/websearch}
SHORT=${SHORT:-1}
RATE=${RATE:-250}
SCALE=${SCALE:-$(awk -v r="$RATE" 'BEGIN { print r / 25000 }')} K=${K:-30000} B=${B:-1000000} SEED=${SEED:-1}
if [ "$SHORT" = smoke ]; then	# the make-check mode
	LOADS=${LOADS:-0.3} FLOWS=${FLOWS:-30} CCS=${CCS:-cubic}
elif [ "$SHORT" = 1 ]; then
	LOADS=${LOADS:-0.5} FLOWS=${FLOWS:-300}
else
	LOADS=${LOADS:-0.2 0.4 0.6 0.8} FLOWS=${FLOWS:-2000}
fi
CCS=${CCS:-cubic dctcp}
INCAST=${INCAST:-}
export BUILD
[ "$(id -u)" = 0 ] || { echo "websearch: needs root (network namespaces)" >&2; exit 1; }
source tests/lib/suitelock.sh && suite_lock_take
source tests/lib/fabric.sh
source tests/lib/dctcp.sh
source tests/lib/workload.sh

export FAB_RTO_MIN_MS=${FAB_RTO_MIN_MS:-10}
# TBF limit above the switch's buffer: only the admission switch drops
fabric_leafspine 2 2 2 "$RATE" $((4 * B)) || { echo "websearch: fabric failed" >&2; exit 1; }
fabric_on_exit dctcp_unregister
fabric_leafspine_ping_all || exit 1
case " $CCS " in *" dctcp "*) dctcp_register || { echo "websearch: $DCTCP_ERR" >&2; exit 1; } ;; esac
wl_ecn_switches "$K" "$B" || exit 1
rc=0
for load in $LOADS; do
	wl_init "$OUT/load$load" || exit 1
	rm -f "$WL_OUT"/*.json "$WL_OUT"/*.csv
	for cc in $CCS; do
		echo "websearch: load $load, $cc, $FLOWS flows"
		wl_run "$cc" --cc "$cc" --cdf websearch --scale "$SCALE" --load "$load" --flows "$FLOWS" \
			--seed "$SEED" ${INCAST:+--incast "$INCAST"} --tag label="$cc" --tag ecn_k_bytes="$K" || rc=1
	done
	wl_plot "websearch x$SCALE, load $load, leaf-spine 2x2x2 at $RATE Mbit/s" || rc=1
done
exit $rc
