# Bounded run of the libFuzzer harnesses (tests/fuzz/*.c): builds them if
# needed (make fuzz-build), runs each for FUZZ_SECONDS (default 10) on its
# corpus under $OUT/fuzz/corpus/<name>, and fails on any crash, leak,
# sanitizer report or hang.  `make fuzz` runs the same with 60 s each.
# Needs clang's libFuzzer (libclang-rt-14-dev): installed with apt when
# missing and running as root, otherwise a clear failure.
# kernel-independent: the same output on any kernel (user space only)
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"

CLANG=${CLANG:-clang}
SECS=${FUZZ_SECONDS:-10}
FUZZ_OUT="$OUT/fuzz"
mkdir -p "$FUZZ_OUT/corpus"

have_libfuzzer() {
	local tmp rc
	tmp=$(mktemp -d) || return 1
	printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$tmp/t.c"
	"$CLANG" -fsanitize=fuzzer,address,undefined -o "$tmp/t" "$tmp/t.c" >/dev/null 2>&1
	rc=$?
	rm -rf "$tmp"
	return $rc
}

if ! have_libfuzzer; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "# libFuzzer missing: installing libclang-rt-14-dev" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libclang-rt-14-dev >/dev/null 2>&1 ||
			{ apt-get update -qq >/dev/null 2>&1 &&
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libclang-rt-14-dev >/dev/null 2>&1; }
	fi
	if ! have_libfuzzer; then
		t_fail "fuzz: libFuzzer available" \
			"$CLANG -fsanitize=fuzzer cannot link: install libclang-rt-14-dev (apt-get install libclang-rt-14-dev, as root)"
		exit 1
	fi
fi

# Built here, not by `make all`: libFuzzer is only needed for fuzzing.  A
# make started by make check must not inherit the parent's jobserver.
if ! out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s fuzz-build BUILD="$BUILD" 2>&1); then
	t_fail "fuzz: harnesses build" "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
	exit 1
fi

for src in tests/fuzz/*.c; do
	name=$(basename "$src" .c)
	bin="$BUILD/fuzz/$name"
	corpus="$FUZZ_OUT/corpus/$name"
	log="$FUZZ_OUT/$name.log"
	mkdir -p "$corpus"
	# seeds: the example config for the parser, a small model for the model parser
	[ "$name" = fuzz_config ] && cp -n loader/dcbpfd.conf.example "$corpus/seed-example.conf"
	[ "$name" = fuzz_model ] && [ ! -e "$corpus/seed.model" ] &&
		printf '%s\n' 'dcbpf-forest 1' '# seed' 'trees 2 depth 2 ewma_period_ns 50000' \
			'tree 0 nodes 5' '0 split qlen 3000 1 2' '1 leaf 0' '2 split occ_ewma 900000 3 4' \
			'3 leaf 30000' '4 leaf 65536' 'tree 1 nodes 1' '0 leaf 100' 'end' >"$corpus/seed.model"
	timeout --kill-after=10 $((SECS + 120)) "$bin" -max_total_time="$SECS" -timeout=10 \
		-rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1 \
		-artifact_prefix="$FUZZ_OUT/$name-" "$corpus" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ $rc -eq 0 ] && ! grep -qE '^==[0-9]+==ERROR|runtime error:|LeakSanitizer|deadly signal|ERROR: libFuzzer|property violated' "$log"; then
		t_pass "fuzz: $name: ${runs:-?} inputs in ${SECS}s, no crash, leak or sanitizer report"
	else
		why=$(grep -m1 -E 'property violated|==[0-9]+==ERROR|runtime error:|LeakSanitizer|deadly signal|ERROR: libFuzzer' "$log")
		[ $rc -eq 124 ] && why="hung (killed after $((SECS + 120))s)"
		t_fail "fuzz: $name" "${why:-exit $rc}; log $log; reproducer $(ls -1t "$FUZZ_OUT/$name"-* 2>/dev/null | head -n 1)"
	fi
done
exit "${T_FAILED:-0}"
