#!/usr/bin/env bash
# The fabric's 10:1 PowerTCP incast (tests/exp/ptcp_incast.sh; PowerTCP,
# NSDI'22, Fig. 2.4 of Addanki's thesis) in ns-3 (tests/ns3/scen_incast.cc):
# 11 senders and a receiver on one switch, 1 Gbit/s ports, 1 MB of shared
# buffer, one long flow and from 20 ms a 10:1 incast of 64 KiB per sender;
# the switch model's admission, INT and the CCs are the project's cores.
# ns-3 is deterministic: one run per setting is the result.
#
#   make exp-ns3-incast                        # SHORT=1: incast at 20 ms, 60 ms per CC, 1-2 s each
#   SHORT=0 tests/exp/ns3_incast.sh            # incast at 500 ms (CUBIC near its steady state), 7-13 s each
#   RATES="1000 25000" ...                     # also 25 Gbit/s, with 25× the buffer and incast bytes
#
# Writes $OUT/summary.json (one object per run: the scenario's dcbpf-workload/1
# summary), $OUT/runs.csv (cc,rate_mbit,alg,incast_ms,queue_p50,queue_p99,
# queue_max,goodput_mbit), $OUT/queue.csv (cc,rate_mbit,t_us,queue_bytes)
# and $OUT/queue.png (the receiver port's queue over time per CC).
# Env: CCS (powertcp theta_powertcp dctcp cubic), ALG (cs), RATES (1000), BUILD,
# OUT (out/ns3-incast).
# shellcheck shell=bash
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
OUT=$(realpath -m "${OUT:-out/ns3-incast}")
SHORT=${SHORT:-1}
CCS=${CCS:-powertcp theta_powertcp dctcp cubic}
ALG=${ALG:-cs}
S="$BUILD/ns3/scen_incast"
[ -x "$S" ] || { echo "ns3 incast: $S missing: sudo make ns3-deps; make ns3" >&2; exit 1; }
mkdir -p "$OUT/runs"
RATES=${RATES:-1000}
INCAST_MS=20
[ "$SHORT" = 0 ] && INCAST_MS=500
STOP_MS=$((INCAST_MS + 40))

: >"$OUT/summary.json.tmp"
echo "cc,rate_mbit,alg,incast_ms,queue_p50,queue_p99,queue_max,goodput_mbit" >"$OUT/runs.csv"
echo "cc,rate_mbit,t_us,queue_bytes" >"$OUT/queue.csv"
rc=0
for rate in $RATES; do
	# the same bytes per BDP at 25 Gbit/s: 25× the incast, the buffer 25×
	k=$((rate / 1000))
	for cc in $CCS; do
		d="$OUT/runs/$cc-$rate"
		mkdir -p "$d"
		if ! "$S" --cc="$cc" --alg="$ALG" --rate-mbit="$rate" --buffer=$((1000000 * k)) \
			--bytes=$((65536 * k)) --incast-ms=$INCAST_MS --stop-ms=$STOP_MS --out="$d" >"$d/log" 2>&1; then
			echo "ns3 incast: $cc at $rate Mbit/s: an incast flow did not finish (see $d)" >&2
			rc=1
		fi
		[ -f "$d/$cc.json" ] || continue
		jq -c --arg cc "$cc" '. + {label: $cc}' "$d/$cc.json" >>"$OUT/summary.json.tmp"
		jq -r --arg cc "$cc" --arg alg "$ALG" '[$cc, .params.rate_mbit, $alg, (.incast_ms // "null"),
			.queue.p50, .queue.p99, .queue.max, .run.goodput_mbit] | @csv' "$d/$cc.json" |
			tr -d '"' >>"$OUT/runs.csv"
		tail -n +2 "$d/$cc.queue.csv" | sed "s/^/$cc,$rate,/" >>"$OUT/queue.csv"
	done
done
jq -s . "$OUT/summary.json.tmp" >"$OUT/summary.json" && rm -f "$OUT/summary.json.tmp"

if command -v gnuplot >/dev/null; then
	{
		echo "set terminal pngcairo size 900,500; set output '$OUT/queue.png'"
		echo "set datafile separator ','; set xlabel 'time (ms)'; set ylabel 'queue (kB)'"
		echo "set title 'ns-3: 10:1 incast at $INCAST_MS ms onto a long flow, 1 Gbit/s, 1 MB buffer ($ALG)'"
		echo "set xrange [$((INCAST_MS - 10)):$STOP_MS]"
		printf "plot "
		sep=""
		for cc in $CCS; do
			printf "%s'< grep \"^%s,1000,\" %s' using (\$3/1000):(\$4/1000) with lines title '%s'" \
				"$sep" "$cc" "$OUT/queue.csv" "$cc"
			sep=", "
		done
		echo
	} >"$OUT/queue.gp"
	gnuplot "$OUT/queue.gp" 2>"$OUT/gnuplot.log" || echo "ns3 incast: gnuplot failed (see $OUT/gnuplot.log)" >&2
else
	echo "ns3 incast: gnuplot missing (make deps), no plot" >&2
fi
column -s, -t "$OUT/runs.csv"
echo "written: $OUT/summary.json $OUT/runs.csv $OUT/queue.csv $OUT/queue.png" >&2
exit $rc
