# `dcbpf credence train|check|show` and `dcbpf sim --predictor forest`
# end to end: a model trained on a short workload passes check, shows its
# trees and drives the simulator; bad model files are refused with the
# file, the line, the reason and exit code 1 (loader/lib/cli.h); misuse is
# exit code 2.  No pinned state, no namespaces.
# kernel-independent: the same output on any kernel (user space only)
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"

[ -x "$BUILD/dcbpf" ] || { t_fail "credence cli: dcbpf built" "run make"; exit 1; }
D="$BUILD/dcbpf"
tmp=$(t_mktmp credence-cli) || exit 1

m="$tmp/model"
expect "credence cli: train writes a model and reports held-out scores" 0 \
	'holdout +[0-9]+ +[0-9]+' "$D" credence train --slots 20000 --seed 3 --out "$m"
expect "credence cli: train --json is JSON with the scores" 0 '^true$' \
	bash -c "'$D' credence train --slots 20000 --seed 3 --out '$tmp/m2' --json | jqe '.holdout_scores.f1 >= 0'"
t_check "credence cli: the same seed writes the same file" cmp "$m" "$tmp/m2"
expect "credence cli: check accepts it" 0 "^$m: valid model version 1: 4 trees, depth 4" \
	"$D" credence check "$m"
expect "credence cli: show prints the trees" 0 '^tree 3 \(' "$D" credence show "$m"
# --json: the global flag, before or after the subcommand; errors are one object
expect "credence cli: check --json is the model's summary" 0 '^true$' \
	bash -c "'$D' --json credence check '$m' | jqe '.valid and .trees == 4 and .depth == 4 and .leaves > 0'"
expect "credence cli: show --json has every tree's nodes" 0 '^true$' \
	bash -c "'$D' credence show '$m' --json | jqe '(.forest | length) == 4 and (.forest[0] | length) >= 1'"
expect "credence cli: sim runs Credence with the forest" 0 \
	'# credence: predictor forest, flip 0: [0-9]+ predictions asked' \
	"$D" sim --alg credence --predictor forest --model "$m" --slots 20000

# the other training paths: a trace file (the live capture's format), the
# Credence-with-oracle state on the consulted arrivals, retraining rounds
"$D" sim --slots 20000 --seed 5 --write-trace "$tmp/trace.csv" >/dev/null
sed -i '1s/.*/time_ns,port,priority,bytes,first_rtt/; 2,$s/^\([0-9]*\),/\1000000,/' "$tmp/trace.csv"
expect "credence cli: train from a time_ns trace" 0 "arrivals \($tmp/trace.csv\)" \
	"$D" credence train --trace "$tmp/trace.csv" --slot-ns 1000000 --out "$tmp/mt"
t_check "credence cli: the trace-trained model passes check" "$D" credence check "$tmp/mt"
expect "credence cli: train on Credence's consulted arrivals, 2 rounds" 0 '# 2 rounds; trained on' \
	"$D" credence train --slots 20000 --state credence --samples consulted --rounds 2 --out "$tmp/mr"
expect "credence cli: --state lqd with --samples consulted is a usage error" 2 'consults no predictor' \
	"$D" credence train --slots 1000 --state lqd --samples consulted --out "$tmp/x"

# bad files: reason, file:line, exit 1
head -n 6 "$m" >"$tmp/trunc"
expect "credence cli: truncated model refused (file:line, truncated)" 1 \
	"$tmp/trunc:7: file ends where a node was expected \(truncated\)" "$D" credence check "$tmp/trunc"
sed '1s/.*/dcbpf-forest 9/' "$m" >"$tmp/ver"
expect "credence cli: wrong version refused" 1 "$tmp/ver:1: model format version '9' is not supported" \
	"$D" credence check "$tmp/ver"
sed '0,/^\([0-9]*\) leaf [0-9][0-9]*$/s//\1 leaf nan/' "$m" >"$tmp/nan"
expect "credence cli: NaN probability refused" 1 "$tmp/nan:[0-9]+: leaf probability 'nan' is not an unsigned decimal" \
	"$D" credence check "$tmp/nan"
sed 's/^trees 4 depth 4/trees 4 depth 12/' "$m" >"$tmp/depth"
expect "credence cli: depth out of range refused" 1 "$tmp/depth:[0-9]+: depth '12'" \
	"$D" credence check "$tmp/depth"
sed '0,/^0 split \([a-z_]*\) \([0-9]*\) 1 2$/s//0 split \1 \2 1 99/' "$m" >"$tmp/child"
expect "credence cli: child index out of range refused" 1 "$tmp/child:[0-9]+: tree 0 node 0: child node index out of range" \
	"$D" credence check "$tmp/child"
{ cat "$m"; echo "surplus"; } >"$tmp/trail"
expect "credence cli: trailing garbage refused" 1 "$tmp/trail:[0-9]+: 'surplus' after 'end'" \
	"$D" credence check "$tmp/trail"
head -c 300000 /dev/zero | tr '\0' '#' >"$tmp/big"
expect "credence cli: oversized file refused by size" 1 "$tmp/big: 300000 bytes, larger than any model" \
	"$D" credence check "$tmp/big"
expect "credence cli: missing file named" 1 "$tmp/none: cannot open" "$D" credence show "$tmp/none"
expect "credence cli: check --json on a bad model: one JSON error object, exit 1" 1 \
	'"code":1,"command":"dcbpf credence check"' bash -c "'$D' credence check --json '$tmp/nan'; r=\$?; '$D' credence check --json '$tmp/nan' | jqe '.error | test(\"leaf probability\")' >/dev/null || exit 9; exit \$r"
expect "credence cli: sim refuses a bad model with the reason" 1 "dcbpf sim: $tmp/nan:[0-9]+: leaf probability" \
	"$D" sim --alg credence --predictor forest --model "$tmp/nan" --slots 1000

# misuse: exit 2
expect "credence cli: check without a file is a usage error" 2 'missing MODEL' "$D" credence check
expect "credence cli: unknown subcommand is a usage error" 2 "unknown command 'frob'" "$D" credence frob
expect "credence cli: train without --out is a usage error" 2 '--out MODEL is required' \
	"$D" credence train --slots 100
expect "credence cli: train --depth 9 is a usage error" 2 "--depth: 9 is above the maximum 8" \
	"$D" credence train --depth 9 --out "$tmp/x"
expect "credence cli: --predictor forest without --model is a usage error" 2 'go together' \
	"$D" sim --alg credence --predictor forest
t_check "credence cli: a refused train leaves no file" test ! -e "$tmp/x"
exit "${T_FAILED:-0}"
