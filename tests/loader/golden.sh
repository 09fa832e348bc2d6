# Golden outputs of dcbpf and dcbpfd (tests/golden/README.md): every --help,
# usage error, parameter reference, the no-daemon answers, the simulator and
# Credence training on fixed seeds.  Captures them afresh and compares each
# with its file in tests/golden/expected: one PASS per group, one FAIL per
# differing, missing or new file, with the head of the unified diff.
# kernel-independent: the same output on any kernel (user space only)
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"

if [ ! -x "$BUILD/dcbpf" ] || [ ! -x "$BUILD/dcbpfd" ]; then
	t_fail "golden: binaries built" "run make"
	exit 1
fi
exp=tests/golden/expected
[ -d "$exp" ] || { t_fail "golden: $exp exists" "run tests/golden/update"; exit 1; }
tmp=$(t_mktmp golden-test) || exit 1

if ! n=$(BUILD="$BUILD" tests/golden/capture "$tmp/got" 2>"$tmp/err"); then
	t_fail "golden: capture ran" "$(tr '\n' ' ' <"$tmp/err")"
	exit 1
fi
got=$tmp/got

# Groups are the top folders of both trees; files are compared by name.
groups=$( (cd "$exp" && ls -1; cd "$got" && ls -1) | sort -u)
for g in $groups; do
	files=$( (cd "$exp" && find "$g" -type f 2>/dev/null; cd "$got" && find "$g" -type f 2>/dev/null) | sort -u)
	total=0 bad=0
	for f in $files; do
		total=$((total + 1))
		if [ ! -f "$got/$f" ]; then
			t_fail "golden: $f" "no longer produced (case removed? run tests/golden/update)"
			bad=$((bad + 1))
		elif [ ! -f "$exp/$f" ]; then
			t_fail "golden: $f" "new output with no expected file (run tests/golden/update)"
			bad=$((bad + 1))
		elif ! cmp -s "$exp/$f" "$got/$f"; then
			t_fail "golden: $f" "differs from $exp/$f (intended? run tests/golden/update and say so in the commit)"
			diff -u --label "expected/$f" --label "got/$f" "$exp/$f" "$got/$f" | head -n 20 | sed 's/^/    /'
			bad=$((bad + 1))
		fi
	done
	[ "$bad" -eq 0 ] && t_pass "golden: $g: $total outputs match"
done
# the capture's own count: a case that silently writes nothing would show here
case $n in
[1-9]*) t_pass "golden: $n outputs captured" ;;
*) t_fail "golden: outputs captured" "capture reported '$n'" ;;
esac
[ -z "${T_FAILED:-}" ]
