# s-PERC simulator speed: link updates per second on one core, from
# `dcbpf perc sim --json` on a generated network (64 links of 10-100 Gb/s,
# 256 flows of 2-6 hops, 200 rounds).  Prints {"perc_sim_updates_per_s": …}.
# shellcheck shell=bash
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
source tests/lib/bench.sh
tmp=$(mktemp -d /tmp/dcbpf-bench-perc.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { srand(7)
	for (l = 0; l < 64; l++) printf "link l%d %dG\n", l, 10 * (1 + int(rand() * 10))
	for (f = 0; f < 256; f++) {
		n = 2 + int(rand() * 5); s = ""; delete used
		for (h = 0; h < n; h++) { do { l = int(rand() * 64) } while (l in used); used[l] = 1; s = s " l" l }
		printf "flow f%d%s\n", f, s
	} }' >"$tmp/net.topo"
best=$(for r in 1 2 3; do
	"$BUILD/dcbpf" perc sim --topo "$tmp/net.topo" --rounds 200 --json | jq '.updates_per_s | floor'
done | sort -n | tail -n1)
bench_fig perc_sim_updates_per_s "$best" 1/s
