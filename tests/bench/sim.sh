# Simulator speed: admission decisions per second per algorithm on one
# core (the incast-heavy default mix, unit packets, 16 ports), from
# `dcbpf sim --json`.  Prints {"sim_<alg>_decisions_per_s": …} lines.
# shellcheck shell=bash
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
for alg in cs dt abm lqd; do
	# best of three: the figure is the engine's, not the machine's load
	best=$(for r in 1 2 3; do
		"$BUILD/dcbpf" sim --alg "$alg" --slots 1000000 --json | jq '.[0].decisions_per_s'
	done | sort -n | tail -n1)
	printf '{"sim_%s_decisions_per_s": {"value": %s, "unit": "1/s"}}\n' "$alg" "$best"
done
