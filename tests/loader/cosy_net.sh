# `dcbpf cosy send` and `dcbpf cosy serve`: the end host of
# include/dcbpf/cosyhost.h on UDP over loopback ("Building a Partial
# Communication Synchrony Abstraction on Asynchronous Datacenters"): messages
# complete no faster than s·K/B (paced at B/K per slot), a receiver with one
# slot and no wait rejects the second of two as busy, Poisson arrivals to two
# receivers reach both (the same seed, the same draws), no receiver means a
# reject at delta, and bad input is refused.  Loopback of the test's own
# network namespace; no BPF.
# kernel-independent: the same output on any kernel (user space only)
# shellcheck shell=bash
# A network namespace of our own (no name: gone when the last process in it
# leaves), lo up; first, so nothing below runs twice.
if [ -z "${COSY_NET_INNER:-}" ]; then
	# shellcheck disable=SC2016
	COSY_NET_INNER=1 exec unshare -n bash -c 'ip link set lo up && exec bash "$0" "$@"' "$0" "$@"
fi
source "$(dirname "$0")/../lib/test.sh"

[ -x "$BUILD/dcbpf" ] || { t_fail "cosy net: dcbpf built" "run make"; exit 1; }
command -v jq >/dev/null || { t_fail "cosy net: jq installed" "apt-get install -y jq"; exit 1; }
D=$(realpath "$BUILD/dcbpf")
tmp=$(t_mktmp cosy-net) || exit 1
PORT=27263

stop_serve() { kill "$1" 2>/dev/null || true; }
serve() { # OUT ARGS...: a receiver in the background, its JSON into OUT
	local out=$1
	shift
	"$D" --json cosy serve --bind 127.0.0.1 --port $PORT "$@" >"$out" 2>&1 &
	SERVE_PID=$!
	t_cleanup stop_serve "$SERVE_PID"
	wait_bound 1
}
# wait_bound N: until N sockets are bound to PORT (up to 5 s). A fixed pause
# was too short on a loaded machine: the first messages met no receiver and
# were rejected at delta.
wait_bound() {
	local i
	for i in $(seq 100); do
		[ "$(ss -Huan "sport = :$PORT" | grep -c .)" -ge "$1" ] && return 0
		sleep 0.05
	done
	echo "cosy net: $1 receiver(s) not bound to port $PORT after 5 s" >&2
}

# 4 messages of 64000 B, K 2, B 1 Gb/s: 46 packets of 1400 B at 500 Mb/s, the
# last 45 x 22.4 us = 1.008 ms after the first.
serve "$tmp/s1.json" -n 4 -k 2 --run-ms 8000
jqs "cosy net: 4 messages complete, none faster than its pacing at B/K (1.008 ms)" \
	'.complete == 4 and .done == 4 and ([.messages[].latency_ns] | min) >= 1008000 and
	 ([.messages[] | .status] | unique) == ["complete"]' \
	"$D" --json cosy send --to 127.0.0.1 --port $PORT -n 4 -k 2 --msg-bytes 64000 --bw-kbps 1000000 --run-ms 8000
wait "$SERVE_PID"
jqv "cosy net: the receiver counted 4, no failure" "$(cat "$tmp/s1.json")" '.received == 4 and .failed == 0'

# One slot, no wait: of two messages asking at once, one is rejected as busy (reason 2).
serve "$tmp/s2.json" -n 1 -k 1 --wait-ns 0 --run-ms 8000
jqs "cosy net: receiver with one slot and no wait: one complete, one rejected busy" \
	'.complete == 1 and ([.messages[] | select(.status == "reject") | .reason] == [2])' \
	"$D" --json cosy send --to 127.0.0.1 --port $PORT -n 2 -k 2 --run-ms 8000
wait "$SERVE_PID"

# Poisson arrivals (200 a second) to two receivers: each message goes to one
# of them, both get some, every one is answered and most complete (with no
# switch between, both receivers hand out slot 0: an rsvp whose slot the
# sender is using for the other receiver is refused, §3.2); the same seed
# draws the same receivers again; arrivals spread over about 150 ms (30
# gaps of 5 ms mean).
poisson() { # OUT
	local pids=() a
	for a in 127.0.0.1 127.0.0.2; do
		"$D" --json cosy serve --bind $a --port $PORT -n 1000 -k 4 --run-ms 3000 >"$tmp/p-$a.json" 2>&1 &
		pids+=($!)
		t_cleanup stop_serve $!
	done
	wait_bound 2
	"$D" --json cosy send --to 127.0.0.1,127.0.0.2 --port $PORT --rate-per-s 200 --seed 7 -n 30 -k 4 \
		--msg-bytes 14000 --run-ms 3000 >"$1" 2>&1
	for a in "${pids[@]}"; do kill "$a" 2>/dev/null; wait "$a" 2>/dev/null; done
}
poisson "$tmp/p1.json"
jqv "cosy net: Poisson to two receivers: 30 answered, 15 or more complete, none failed, each to one of them, both used, arrivals over 30 ms .. 2 s" \
	"$(cat "$tmp/p1.json")" \
	'.done == 30 and .complete >= 15 and .failed == 0 and .refused == 0 and ([.messages[].to] | unique) == ["127.0.0.1", "127.0.0.2"] and
	 ([.messages[].t_ns] | max) > 30000000 and ([.messages[].t_ns] | max) < 2000000000'
poisson "$tmp/p2.json"
a=$(jq -c '[.messages | sort_by(.msg_id)[] | .to]' "$tmp/p1.json")
b=$(jq -c '[.messages | sort_by(.msg_id)[] | .to]' "$tmp/p2.json")
[ "$a" = "$b" ] && [ "$(jq '.messages[0].msg_id / 1099511627776 | floor' "$tmp/p1.json")" = 7 ] &&
	t_pass "cosy net: the same seed draws the same receivers; ids carry the seed above bit 40" ||
	t_fail "cosy net: the same seed draws the same receivers" "$a vs $b"

# Nobody listening: each message is rejected at delta (reason 0), on time.
jqs "cosy net: no receiver: reject at delta (50 ms), reason 0" \
	'.complete == 0 and ([.messages[] | select(.status == "reject" and .reason == 0 and
	  .latency_ns >= 50000000 and .latency_ns < 2000000000)] | length) == 2' \
	"$D" --json cosy send --to 127.0.0.1 --port $PORT -n 2 --delta-ns 50000000 --run-ms 5000
expect "cosy net: no answer within --run-ms: exit 1 with the count" 1 "2 of 2 messages had no answer after --run-ms 20" \
	"$D" cosy send --to 127.0.0.1 --port $PORT -n 2 --run-ms 20
expect "cosy net: --to must be IPv4" 2 "--to 'host.example' is not an IPv4 address" \
	"$D" cosy send --to host.example
expect "cosy net: a receiver named twice refused" 2 "--to names 127.0.0.1 twice" \
	"$D" cosy send --to 127.0.0.1,127.0.0.2,127.0.0.1
expect "cosy net: a bad receiver in a list refused" 2 "--to '127.0.0' is not an IPv4 address" \
	"$D" cosy send --to 127.0.0.1,127.0.0
expect "cosy net: K above 64 refused" 2 "--k: 65 is above the maximum 64" "$D" cosy send --to 127.0.0.1 -k 65
expect "cosy net: serve on an address not here" 1 "bind 192.0.2.1:$PORT" \
	"$D" cosy serve --bind 192.0.2.1 --port $PORT --run-ms 10

[ -z "${T_FAILED:-}" ]
