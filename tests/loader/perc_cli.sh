# `dcbpf perc oracle` and `dcbpf perc sim` on the command line: the oracle's
# rates and WF^k depths on the thesis' chain example, the simulator's JSON
# (exact rates within 6·W², churn, losses), and topology files refused with
# their line and reason.  No pinned state, no namespaces.
# kernel-independent: the oracle and the simulator in user space, no BPF in the kernel
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"

[ -x "$BUILD/dcbpf" ] || { t_fail "perc cli: dcbpf built" "run make"; exit 1; }
D="$BUILD/dcbpf"
tmp=$(t_mktmp perc-cli) || exit 1

# Fig 1.3 of "Proactive Congestion Control": C 10, B 20, A 50 Gb/s; W1 = W2 = 3.
cat >"$tmp/t2.topo" <<'T'
# three links, three flows
link L1 70G
link L2 30G   # the middle link
link L3 10000M

flow A L1
flow B L1 L2
flow C L2 L3
T
jqs "perc cli: oracle: A 50, B 20, C 10 Gb/s in kbps, bottlenecks L1 L2 L3, W1 = W2 = W = 3" \
	'.w1 == 3 and .w2 == 3 and .w == 3 and .bound_rounds == 18 and
	 ([.flows[] | [.flow, .rate_kbps, .bottleneck]] == [["A", 50000000, "L1"], ["B", 20000000, "L2"], ["C", 10000000, "L3"]])' \
	"$D" perc oracle --topo "$tmp/t2.topo" --json
expect "perc cli: oracle text names the bound" 0 "6\\*W2 = 18 rounds" "$D" perc oracle -t "$tmp/t2.topo"
jqs "perc cli: sim (s-PERC*): every flow exact, within 6*W2 rounds" \
	'.converged and .max_rounds <= 18 and .drops == 0 and .updates > 0 and
	 ([.flows[].rate_kbps] == [50000000, 20000000, 10000000])' \
	"$D" perc sim --topo "$tmp/t2.topo" --json
for alg in s-perc n-perc; do
	jqs "perc cli: sim --alg $alg converges on Fig 1.3" \
		".alg == \"$alg\" and .converged and ([.flows[].rate_kbps] == [50000000, 20000000, 10000000])" \
		"$D" perc sim --topo "$tmp/t2.topo" --alg $alg --seed 3 --json
done

# Churn: C leaves at round 30; its share goes back to B and A, and the links forget it.
sed 's/^flow C L2 L3$/flow C L2 L3 start=10 fin=30/' "$tmp/t2.topo" >"$tmp/churn.topo"
jqs "perc cli: sim churn: after C's FIN, A 40 and B 30 Gb/s; L3 holds no flow" \
	'.converged and (.flows[2].active | not) and .flows[0].rate_kbps == 40000000 and
	 .flows[1].rate_kbps == 30000000 and (.links[2].num_b == 0 and .links[2].sum_e_kbps == 0)' \
	"$D" perc sim --topo "$tmp/churn.topo" --json
jqs "perc cli: sim with control losses: restarts happen, rates still exact" \
	'.converged and .drops > 0 and ([.flows[].restarts] | add) > 0' \
	"$D" perc sim --topo "$tmp/t2.topo" --drop 0.05 --drop-until 40 --json
expect "perc cli: --rn-literal needs s-PERC*" 2 "rn-literal is a variant of --alg s-perc-star" \
	"$D" perc sim --topo "$tmp/t2.topo" --alg s-perc --rn-literal
expect "perc cli: delay bounds in order" 2 "delay-min-ns 5000 is above --delay-max-ns 2000" \
	"$D" perc sim --topo "$tmp/t2.topo" --delay-min-ns 5000

# Refused files: the line and the reason.
bad() { # NAME LINE-PATTERN TEXT
	printf '%b' "$3" >"$tmp/bad.topo"
	expect "perc cli: refused: $1" 2 "bad.topo:$2" "$D" perc oracle --topo "$tmp/bad.topo"
}
bad "unknown keyword" "2: unknown keyword 'switch'" 'link a 1G\nswitch s\nflow x a\n'
bad "undeclared link" "3: flow 'x': link 'b' is not declared" 'link a 1G\n\nflow x a b\n'
bad "capacity with a fraction of a kbps" "1: capacity '0.5k'" 'link a 0.5k\nflow x a\n'
bad "nine hops" "10: flow 'x' crosses more than 8 links" \
	'link a 1G\nlink b 1G\nlink c 1G\nlink d 1G\nlink e 1G\nlink f 1G\nlink g 1G\nlink h 1G\nlink i 1G\nflow x a b c d e f g h i\n'
bad "fin before start" "2: flow 'x': fin=1 is not after start=2" 'link a 1G\nflow x a start=2 fin=1\n'
printf 'link a 1G\n' >"$tmp/noflow.topo"
expect "perc cli: refused: no flow" 2 "noflow.topo: no flow declared" "$D" perc sim --topo "$tmp/noflow.topo"
expect "perc cli: a missing file is named" 2 "absent.topo" "$D" perc oracle --topo "$tmp/absent.topo"
jqs "perc cli: --json error object for a bad file" '.code == 2 and (.error | test("bad.topo:2: flow .x.: fin=1"))' \
	"$D" --json perc oracle --topo "$tmp/bad.topo"

[ -z "${T_FAILED:-}" ]
