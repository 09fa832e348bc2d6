# Simulator speed: admission decisions per second per algorithm on one
# core (the incast-heavy default mix, unit packets, 16 ports), from
# `dcbpf sim --json`.  Prints {"sim_<alg>_decisions_per_s": …} lines.
# shellcheck shell=bash
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
source tests/lib/bench.sh
for alg in cs dt abm lqd; do
	# best of three: the figure is the engine's, not the machine's load
	best=$(for r in 1 2 3; do
		"$BUILD/dcbpf" sim --alg "$alg" --slots 1000000 --json | jq '.[0].decisions_per_s'
	done | sort -n | tail -n1)
	printf '{"sim_%s_decisions_per_s": {"value": %s, "unit": "1/s"}}\n' "$alg" "$best"
done

# Trace replay end to end (read + decide, wall time of the whole command, DT,
# one core): the same ~13 M arrivals from a CSV and from the binary form.
# Memory: the binary trace is mapped, so the heap stays at its size for any
# trace length (the page cache holds the file).
tmp=$(mktemp -d /tmp/dcbpf-bench-sim.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$BUILD/dcbpf" sim --alg dt --slots 2000000 --write-trace "$tmp/t.csv" >/dev/null
"$BUILD/dcbpf" sim --alg dt --trace "$tmp/t.csv" --write-trace "$tmp/t.bin" --write-format binary >/dev/null
replay() { # FILE: arrivals per second of wall time, best of three
	for _ in 1 2 3; do
		local t0 t1 n
		t0=$(date +%s%N)
		n=$("$BUILD/dcbpf" sim --alg dt --trace "$1" --json | jq '.[0].arrivals')
		t1=$(date +%s%N)
		echo "$((n * 1000000000 / (t1 - t0)))"
	done | sort -n | tail -n1
}
bench_fig sim_trace_decisions_per_s "$(replay "$tmp/t.bin")" 1/s
bench_fig sim_trace_csv_decisions_per_s "$(replay "$tmp/t.csv")" 1/s
