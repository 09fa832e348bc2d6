# `dcbpf cosy bounds` on the command line: the numbers of "Building a
# Partial Communication Synchrony Abstraction on Asynchronous Datacenters"
# (Lemma 3.3's 5.4 µs and K* ≈ 4200, §4's 640 B of switch state, Fig. 2's
# f(K, 32)), a 1 Gb/s budget worked by hand, the RSVP baseline, and bad
# input refused with its reason.  No pinned state, no namespaces.
# kernel-independent: the same output on any kernel (user space only)
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"

[ -x "$BUILD/dcbpf" ] || { t_fail "cosy cli: dcbpf built" "run make"; exit 1; }
command -v jq >/dev/null || { t_fail "cosy cli: jq installed" "apt-get install -y jq"; exit 1; }
D="$BUILD/dcbpf"

# Lemma 3.3 and §4: #H 5, K 4, p 1500 B, B 100 Gb/s, 32 MB buffers, 128 ports.
jqs "cosy cli: lemma 3.3: dhat 5.4 us, qhat 22500 B, K* 4266 (4266.67, the paper rounds to 4267), 640 B of state at 128 ports" \
	'.dhat_ns == 5400 and .qhat_bytes == 22500 and .kstar == 4266 and (.kstar_exact | round) == 4267 and .kstar_exact > 4266.66 and
	 .lossless and .state_bits == 5120 and .mode == "cosy"' \
	"$D" --json cosy bounds --bw-kbps 100000000 --hrtt-ns 5500 --msg-bytes 128000 --hops 5 -k 4 -C 32 \
	--buffer-bytes 32000000 --ports 128

# 1 Gb/s, hRTT 200 us, 64 KB, leaf-spine-leaf: delta* 912 us, alpha 0.391,
# Theta* 0.360; K 2: dhat 72 us, delta_cosy 1496 us; K 4: 216 us, 2664 us.
B1="--bw-kbps 1000000 --hrtt-ns 200000 --msg-bytes 64000"
# shellcheck disable=SC2086
jqs "cosy cli: budget K 2: delta* 912 us, alpha 0.391, Theta* 0.360, dhat 72 us, delta_cosy 1496 us, qhat 4.5 KB" \
	'.delta_star_ns == 912000 and .alpha == 0.390625 and (.theta_star * 1000 | round) == 360 and
	 .dhat_ns == 72000 and .delta_cosy_ns == 1496000 and .qhat_bytes == 4500 and .kstar == null' \
	"$D" --json cosy bounds $B1 -k 2
# shellcheck disable=SC2086
jqs "cosy cli: budget K 4: dhat 216 us, delta_cosy 2664 us (+ the receiver's wait)" \
	'.dhat_ns == 216000 and .delta_cosy_ns == 2714000 and .qhat_bytes == 13500 and .input.wait_ns == 50000' \
	"$D" --json cosy bounds $B1 -k 4 --wait-ns 50000
# Fig. 2: f(K, 32) for K = 1, 2, 4, 8, 16.
want=(0.638 0.734 0.808 0.863 0.902)
i=0
for k in 1 2 4 8 16; do
	# shellcheck disable=SC2086
	jqs "cosy cli: fig 2: f($k, 32) = ${want[$i]}, theta = f x Theta*" \
		"((.f * 1000 | round) / 1000) == ${want[$i]} and ((.theta - .f * .theta_star) | fabs) < 0.000002" \
		"$D" --json cosy bounds $B1 -k $k -C 32
	i=$((i + 1))
done
# shellcheck disable=SC2086
jqs "cosy cli: --rsvp is K 1: delta_cosy = delta*, no queue, theta = f(1, C) Theta*" \
	'.mode == "rsvp" and .input.k == 1 and .delta_cosy_ns == .delta_star_ns and .qhat_bytes == 0 and .f == 0.75' \
	"$D" --json cosy bounds $B1 --rsvp
# shellcheck disable=SC2086
expect "cosy cli: text names the theorems" 0 "delta_cosy_ns +1496000 +Thm 3.5" "$D" cosy bounds $B1 -k 2
expect "cosy cli: K above K* is printed with a warning" 0 "K 1000 is above K\\* 426" \
	"$D" cosy bounds --bw-kbps 100000000 --hrtt-ns 5500 --msg-bytes 128000 --hops 5 -k 1000 --buffer-bytes 3200000
jqs "cosy cli: K above K*: lossless false" '.lossless == false and .kstar == 426' \
	"$D" --json cosy bounds --bw-kbps 100000000 --hrtt-ns 5500 --msg-bytes 128000 --hops 5 -k 1000 --buffer-bytes 3200000

# Refused, with the reason.
# shellcheck disable=SC2086
expect "cosy cli: --rsvp with K 2 contradicts" 2 "--rsvp is the baseline with one virtual link per link; --k 2" \
	"$D" cosy bounds $B1 --rsvp -k 2
expect "cosy cli: bandwidth required" 2 "--bw-kbps KBPS is required" "$D" cosy bounds --hrtt-ns 1 --msg-bytes 100
expect "cosy cli: zero bandwidth" 2 "--bw-kbps: 0 is below the minimum 1" \
	"$D" cosy bounds --bw-kbps 0 --hrtt-ns 1 --msg-bytes 100
# shellcheck disable=SC2086
expect "cosy cli: K above the calculator's 1024" 2 "--k: 5000 is above the maximum 1024" "$D" cosy bounds $B1 -k 5000
# shellcheck disable=SC2086
expect "cosy cli: no hops" 2 "--hops: 0 is below the minimum 1" "$D" cosy bounds $B1 --hops 0
expect "cosy cli: a message too long for the integers" 2 "takes 3.2e\\+10 s on the wire" \
	"$D" cosy bounds --bw-kbps 1 --hrtt-ns 1 --msg-bytes 1000000000000
expect "cosy cli: not a number" 2 "--msg-bytes" "$D" cosy bounds --bw-kbps 1000 --hrtt-ns 1 --msg-bytes 64KB
jqs "cosy cli: --json error object" '.code == 2 and (.error | test("rsvp is the baseline"))' \
	"$D" --json cosy bounds --bw-kbps 1000 --hrtt-ns 1 --msg-bytes 100 --rsvp -k 3

[ -z "${T_FAILED:-}" ]
