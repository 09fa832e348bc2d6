# dc_promtool: print the path of a promtool to run, or nothing.
# Installing Debian's prometheus package would also enable and start a
# Prometheus server on a systemd machine, for one file check.  So an
# installed promtool is used when there is one; otherwise the package is
# downloaded (not installed) and its promtool unpacked into a cache keyed by
# the package version, checked to run before it is used.
dc_promtool() {
	local cache=${DCBPF_TEST_CACHE:-/var/cache/dcbpf-test} ver d tmp
	if command -v promtool >/dev/null; then
		command -v promtool
		return 0
	fi
	command -v apt-cache >/dev/null || return 0
	ver=$(apt-cache policy prometheus 2>/dev/null | sed -n 's/^ *Candidate: //p')
	if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
		apt-get update -qq >/dev/null 2>&1 || true
		ver=$(apt-cache policy prometheus 2>/dev/null | sed -n 's/^ *Candidate: //p')
	fi
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || return 0
	d=$cache/prometheus_${ver//:/%}
	if [ ! -x "$d/promtool" ] || ! "$d/promtool" --version >/dev/null 2>&1; then
		mkdir -p "$cache" || return 0
		tmp=$(mktemp -d "$cache/prometheus.XXXXXX") || return 0
		if (cd "$tmp" && apt-get download "prometheus=$ver" >/dev/null 2>&1) &&
			dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/x" 2>/dev/null &&
			[ -x "$tmp/x/usr/bin/promtool" ] && "$tmp/x/usr/bin/promtool" --version >/dev/null 2>&1; then
			rm -rf "$d" && mkdir -p "$d" && cp "$tmp/x/usr/bin/promtool" "$d/promtool"
		fi
		rm -rf "$tmp"
	fi
	[ -x "$d/promtool" ] && echo "$d/promtool"
	return 0
}
