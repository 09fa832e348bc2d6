# `dcbpf sim --alg reverie|sonic` on the command line: lossless traffic is
# never dropped and every pause is resumed, headroom use stays within what
# the link has in flight (2 x delay x rate; the smallest headroom taken is
# exactly that and still loses nothing), each workload drives only its
# class, runs repeat per seed, and malformed or oversized alpha, gamma and
# headroom are refused with the reason.  No pinned state, no namespaces.
# kernel-independent: the same output on any kernel (user space only)
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"

[ -x "$BUILD/dcbpf" ] || { t_fail "simpfc cli: dcbpf built" "run make"; exit 1; }
D="$BUILD/dcbpf"
S=(--slots 20000)

# 16 ports, 1500 B per slot, link delay 2: at most 2 x 2 x 1500 B arrive after a pause.
for alg in reverie sonic; do
	for load in 0.2 0.8; do
		jqs "simpfc cli: $alg, load $load: no lossless drop, every pause resumed, headroom <= 6000 B in flight, every incast done" \
			'.[0] | .lossless_drops == 0 and .lossless_arrivals > 0 and .pauses > 0 and
			 .resumes == .pauses and .headroom_queue_max_bytes > 0 and .headroom_queue_max_bytes <= 6000 and
			 .headroom_max_bytes <= .headroom_queue_bytes * 16 and .incasts > 0 and .incasts_done == .incasts' \
			"$D" sim --alg "$alg" "${S[@]}" --load "$load" --seed 3 --json
	done
	jqs "simpfc cli: $alg, load 0.8: lossy traffic is dropped by admission" \
		'.[0] | .lossy_drops > 0 and .lossy_arrivals > .lossy_drops' \
		"$D" sim --alg "$alg" "${S[@]}" --load 0.8 --json
	jqs "simpfc cli: $alg: headroom exactly the 6000 B in flight is enough (no lossless drop)" \
		'.[0] | .headroom_queue_bytes == 6000 and .lossless_drops == 0 and .pauses > 0 and .headroom_queue_max_bytes <= 6000' \
		"$D" sim --alg "$alg" "${S[@]}" --load 0.8 --headroom 6000 --json
	jqs "simpfc cli: $alg: link delay 1 uses at most 3000 B of headroom per queue" \
		'.[0] | .lossless_drops == 0 and .headroom_queue_max_bytes > 0 and .headroom_queue_max_bytes <= 3000' \
		"$D" sim --alg "$alg" "${S[@]}" --load 0.8 --link-delay 1 --json
	jqs "simpfc cli: $alg: link delay 6 uses more than delay 1, at most 18000 B" \
		'.[0] | .lossless_drops == 0 and .headroom_queue_max_bytes > 3000 and .headroom_queue_max_bytes <= 18000' \
		"$D" sim --alg "$alg" "${S[@]}" --load 0.8 --link-delay 6 --json
	jqs "simpfc cli: $alg: --workload incast carries only lossless traffic" \
		'.[0] | .lossy_arrivals == 0 and .lossless_arrivals > 0' "$D" sim --alg "$alg" "${S[@]}" --workload incast --json
	jqs "simpfc cli: $alg: --workload websearch carries only lossy traffic and never pauses" \
		'.[0] | .lossless_arrivals == 0 and .pauses == 0 and .lossy_arrivals > 0' \
		"$D" sim --alg "$alg" "${S[@]}" --workload websearch --json
	a=$("$D" sim --alg "$alg" "${S[@]}" --seed 5 --json)
	b=$("$D" sim --alg "$alg" "${S[@]}" --seed 5 --json)
	c=$("$D" sim --alg "$alg" "${S[@]}" --seed 6 --json)
	if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" != "$c" ]; then
		t_pass "simpfc cli: $alg: a seed gives the same run, another seed another"
	else
		t_fail "simpfc cli: $alg: a seed gives the same run" "$(diff <(echo "$a") <(echo "$b") | head -n 3 | tr '\n' ' ')"
	fi
done
jqs "simpfc cli: the run reports its sizing (shared pool = buffer - 16 x headroom, gamma 0.999)" \
	'.[0] | .alg == "reverie" and .shared_bytes == .buffer_bytes - 16 * .headroom_queue_bytes and .gamma == 0.999' \
	"$D" sim --alg reverie --slots 100 --json

# Refused, with the reason, before anything runs.
while IFS='|' read -r args pat; do
	# shellcheck disable=SC2086 # args are words
	expect "simpfc cli: $args refused" 2 "$pat" "$D" sim --alg reverie $args
done <<'EOF'
--gamma 1|--gamma: 1 is not below the maximum 1
--gamma 1.5|--gamma: 1.5 is not below the maximum 1
--gamma -0.1|--gamma: -0.1 is below the minimum 0
--gamma abc|--gamma: 'abc' is not a number
--gamma 0.99999999999|--gamma rounds to 1 at the filter's precision
--alpha-lossless 0|--alpha-lossless: 0 is not above the minimum 0
--alpha-lossless 2000|--alpha-lossless: 2000 is above the maximum 1024
--alpha-lossy x|--alpha-lossy: 'x' is not a number
--headroom 5999|--headroom 5999 is below what arrives after a pause \(2 x --link-delay 2 x --slot-bytes 1500 = 6000 bytes\)
--headroom 99999999|headroom 99999999 x 16 lossless queues = 1599999984 bytes leaves no shared pool
--buffer 100000|leaves no shared pool in a buffer of 100000 bytes
--headroom abc|--headroom: 'abc' is not an unsigned integer
--headroom 99999999999999|--headroom: 99999999999999 is above the maximum 4294967295
--trace t.csv|--trace does not apply to --alg reverie
--mode byte|--mode does not apply to --alg reverie
--mtu 9000|--mtu 9000 is larger than --slot-bytes 1500
--ports 1|--ports 1: the PFC model needs 2 to 64 ports
EOF
expect "simpfc cli: --gamma with sonic is refused (no filter there)" 2 \
	"^dcbpf sim: --gamma is Reverie's filter; SONiC's thresholds use the instantaneous queue length" \
	"$D" sim --alg sonic --gamma 0.9
expect "simpfc cli: --gamma with another --alg is refused" 2 '^dcbpf sim: --gamma goes with --alg reverie or sonic' \
	"$D" sim --alg dt --gamma 0.5
expect "simpfc cli: --headroom with --alg all is refused" 2 '^dcbpf sim: --headroom goes with --alg reverie or sonic' \
	"$D" sim --alg all --headroom 9000
exit 0
