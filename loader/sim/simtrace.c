// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Trace files of the simulator (sim.h): a CSV whose header names its
 * columns (the format of `dcbpf switch capture` and of --write-trace), and
 * a binary form of the same records for replays at the engine's speed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cli.h"
#include "sim/sim.h"

/* A decimal in [lo, hi] (no sign, no trailing text): 0, or -1. */
static int parse_u64(const char *s, __u64 *out, __u64 lo, __u64 hi)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || !*s || s[0] == '-' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* Trace columns, read by name in any order (docs/admission.md, "Trace
 * replay").  The capture's extra columns (dcbpf switch capture) are
 * known and skipped; any other name is refused, so that a misspelt
 * column cannot be silently read as another. */
enum { TC_SLOT, TC_NS, TC_PORT, TC_PRIO, TC_BYTES, TC_FRTT, TC_KNOWN, TC_SKIP = TC_KNOWN };
static const char *const trace_cols[TC_KNOWN] = { "timeslot", "time_ns", "port", "priority",
						  "bytes", "first_rtt" };
static const char *const trace_skip[] = { "verdict", "q_bytes", "occ_bytes", "q_ewma_bytes",
					  "occ_ewma_bytes" };
#define TRACE_COLS_MAX 32
#define TRACE_COLS_HELP "timeslot or time_ns, port, priority, bytes, optional first_rtt"

/* Splits line at commas in place, trims blanks and the line end; the
 * number of fields, or -1 if there are more than max. */
static int split_csv(char *line, char **f, int max)
{
	int n = 0;
	char *p = line, *e;

	for (;;) {
		if (n == max)
			return -1;
		while (*p == ' ' || *p == '\t')
			p++;
		f[n++] = p;
		e = p + strcspn(p, ",\r\n");
		p = *e == ',' ? e + 1 : NULL;
		while (e > f[n - 1] && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		*e = '\0';
		if (!p)
			return n;
	}
}

/* The header: col[i] = what field i holds. 0, or -1 with err set. */
static int trace_header(const char *path, int lineno, char **f, int nf, int *col,
			struct dc_err *err)
{
	int have[TC_KNOWN], i, k;

	for (k = 0; k < TC_KNOWN; k++)
		have[k] = -1;
	for (i = 0; i < nf; i++) {
		col[i] = -1;
		for (k = 0; k < TC_KNOWN; k++)
			if (!strcmp(f[i], trace_cols[k]))
				col[i] = k;
		for (k = 0; col[i] < 0 && k < (int)(sizeof(trace_skip) / sizeof(trace_skip[0])); k++)
			if (!strcmp(f[i], trace_skip[k]))
				col[i] = TC_SKIP;
		if (col[i] < 0) {
			dc_err_set(err, EXIT_ERR, "%s:%d: unknown column '%s' (column %d of the header%s); the columns are " TRACE_COLS_HELP,
				   path, lineno, f[i], i + 1,
				   f[i][0] >= '0' && f[i][0] <= '9' ? ", the first line must name the columns" : "");
			return -1;
		}
		if (col[i] == TC_SKIP)
			continue;
		if (have[col[i]] >= 0) {
			dc_err_set(err, EXIT_ERR, "%s:%d: column '%s' appears twice (columns %d and %d)",
				   path, lineno, f[i], have[col[i]] + 1, i + 1);
			return -1;
		}
		have[col[i]] = i;
	}
	if ((have[TC_SLOT] >= 0) == (have[TC_NS] >= 0)) {
		dc_err_set(err, EXIT_ERR, "%s:%d: the header needs exactly one time column, 'timeslot' or 'time_ns' (%s)",
			   path, lineno, have[TC_SLOT] >= 0 ? "it has both" : "it has none");
		return -1;
	}
	for (k = TC_PORT; k <= TC_BYTES; k++) {
		if (have[k] < 0) {
			dc_err_set(err, EXIT_ERR, "%s:%d: the header has no column '%s' (needs " TRACE_COLS_HELP ")",
				   path, lineno, trace_cols[k]);
			return -1;
		}
	}
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	__u64 a = *(const __u64 *)x, b = *(const __u64 *)y;

	return a < b ? -1 : a > b;
}

/*
 * Orders rows by slot and, within a slot, by their order in the file:
 * each row's key is slot << 32 | row number, unique, so any sort gives
 * the same result (qsort is not stable by contract).
 */
static int sort_by_slot(struct dc_sim_arrival *a, size_t n)
{
	__u64 *key = malloc((n ? n : 1) * sizeof(*key));
	struct dc_sim_arrival *b = malloc((n ? n : 1) * sizeof(*b));
	size_t i;

	if (!key || !b) {
		free(key);
		free(b);
		return -1;
	}
	for (i = 0; i < n; i++)
		key[i] = (__u64)a[i].slot << 32 | i;
	qsort(key, n, sizeof(*key), cmp_u64);
	for (i = 0; i < n; i++)
		b[i] = a[key[i] & 0xffffffffU];
	memcpy(a, b, n * sizeof(*a));
	free(key);
	free(b);
	return 0;
}

static int dc_sim_read_csv(const char *path, __u64 slot_ns, struct dc_sim_arrival **out,
			   size_t *n, struct dc_err *err)
{
	/* what each column may hold */
	static const __u64 col_max[TC_KNOWN] = { 0xffffffffULL, UINT64_MAX, 65535, DC_SW_PRIOS - 1,
						  1000000, 1 };
	FILE *f = fopen(path, "re");
	struct dc_sim_arrival *a = NULL;
	size_t cnt = 0, cap = 0;
	char line[1024], *fld[TRACE_COLS_MAX];
	int col[TRACE_COLS_MAX];
	int lineno = 0, ncol = -1, sorted = 1, nf, i;

	if (!f) {
		dc_err_set(err, EXIT_ERR, "cannot open trace %s: %s", path, strerror(errno));
		return EXIT_ERR;
	}
	while (fgets(line, sizeof(line), f)) {
		__u64 v[TC_KNOWN] = { 0 };

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			dc_err_set(err, EXIT_ERR, "%s:%d: line longer than %zu characters", path,
				   lineno, sizeof(line) - 2);
			goto bad;
		}
		if (line[0] == '#' || line[0] == '\n' || (line[0] == '\r' && line[1] == '\n'))
			continue;
		nf = split_csv(line, fld, TRACE_COLS_MAX);
		if (nf < 0) {
			dc_err_set(err, EXIT_ERR, "%s:%d: more than %d columns", path, lineno,
				   TRACE_COLS_MAX);
			goto bad;
		}
		if (ncol < 0) {
			if (trace_header(path, lineno, fld, nf, col, err))
				goto bad;
			ncol = nf;
			continue;
		}
		if (nf != ncol) {
			dc_err_set(err, EXIT_ERR, "%s:%d: %d fields, the header has %d columns", path,
				   lineno, nf, ncol);
			goto bad;
		}
		for (i = 0; i < nf; i++) {
			if (col[i] == TC_SKIP)
				continue;
			if (parse_u64(fld[i], &v[col[i]], 0, col_max[col[i]])) {
				dc_err_set(err, EXIT_ERR, "%s:%d: column '%s': '%s' is not an integer in 0..%llu",
					   path, lineno, trace_cols[col[i]], fld[i],
					   (unsigned long long)col_max[col[i]]);
				goto bad;
			}
		}
		for (i = 0; i < nf && col[i] != TC_NS; i++)
			;
		if (i < nf) {
			v[TC_SLOT] = v[TC_NS] / (slot_ns ? slot_ns : 1);
			if (v[TC_SLOT] > 0xffffffffULL) {
				dc_err_set(err, EXIT_ERR, "%s:%d: time beyond 2^32 slots", path, lineno);
				goto bad;
			}
		}
		if (cnt == cap) {
			struct dc_sim_arrival *na;

			cap = cap ? cap * 2 : 4096;
			na = cnt < 0xffffffffULL ? realloc(a, cap * sizeof(*a)) : NULL;
			if (!na) {
				dc_err_set(err, EXIT_ERR, "out of memory reading %s (or more than 2^32 rows)",
					   path);
				goto bad;
			}
			a = na;
		}
		a[cnt].slot = (__u32)v[TC_SLOT];
		a[cnt].port = (__u16)v[TC_PORT];
		a[cnt].prio = (__u8)v[TC_PRIO];
		a[cnt].first_rtt = (__u8)v[TC_FRTT];
		a[cnt].bytes = (__u32)v[TC_BYTES];
		if (cnt && a[cnt].slot < a[cnt - 1].slot)
			sorted = 0;
		cnt++;
	}
	if (ferror(f)) {
		dc_err_set(err, EXIT_ERR, "reading %s: %s", path, strerror(errno));
		goto bad;
	}
	if (ncol < 0) {
		dc_err_set(err, EXIT_ERR, "%s: no header line (needs " TRACE_COLS_HELP ")", path);
		goto bad;
	}
	fclose(f);
	/* captures from several CPUs can interleave slightly out of order */
	if (!sorted && sort_by_slot(a, cnt)) {
		dc_err_set(err, EXIT_ERR, "out of memory sorting %s", path);
		free(a);
		return EXIT_ERR;
	}
	*out = a;
	*n = cnt;
	return 0;
bad:
	fclose(f);
	free(a);
	return EXIT_ERR;
}

int dc_sim_write_trace(const char *path, const struct dc_sim_arrival *a, size_t n,
		       struct dc_err *err)
{
	FILE *f = fopen(path, "we");
	size_t i;

	if (!f) {
		dc_err_set(err, EXIT_ERR, "cannot write %s: %s", path, strerror(errno));
		return EXIT_ERR;
	}
	fprintf(f, "timeslot,port,priority,bytes,first_rtt\n");
	for (i = 0; i < n; i++)
		fprintf(f, "%u,%u,%u,%u,%u\n", a[i].slot, a[i].port, a[i].prio, a[i].bytes,
			a[i].first_rtt);
	if (fclose(f)) {
		dc_err_set(err, EXIT_ERR, "writing %s failed: %s", path, strerror(errno));
		return EXIT_ERR;
	}
	return 0;
}

/* ---- binary traces ---------------------------------------------------------------
 *
 * A header of DC_SIM_BIN_HDR bytes, then `count` records of 12 bytes, each
 * struct dc_sim_arrival as it lies in memory on a little-endian host:
 * slot u32, port u16, priority u8, first_rtt u8, bytes u32.  Records are
 * sorted by slot (the writer's input is; the reader checks).  A replay
 * maps the file and hands the records to the engine where they lie: no
 * parsing, no copy, and the process's heap does not grow with the trace.
 */
struct dc_sim_bin_hdr {
	char magic[8];			/* DC_SIM_BIN_MAGIC */
	__u32 version;			/* 1 */
	__u32 record_bytes;		/* sizeof(struct dc_sim_arrival) */
	__u64 count;
	__u64 reserved;
};
#define DC_SIM_BIN_MAGIC "DCSIMTR\n"

_Static_assert(sizeof(struct dc_sim_arrival) == 12, "binary trace records are 12 bytes");
_Static_assert(sizeof(struct dc_sim_bin_hdr) == 32, "binary trace header is 32 bytes");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "binary traces are the in-memory records of a little-endian host");

int dc_sim_write_trace_bin(const char *path, const struct dc_sim_arrival *a, size_t n,
			   struct dc_err *err)
{
	struct dc_sim_bin_hdr h = { .version = 1, .record_bytes = sizeof(*a), .count = n };
	FILE *f = fopen(path, "we");
	size_t i;

	memcpy(h.magic, DC_SIM_BIN_MAGIC, sizeof(h.magic));
	if (!f)
		return dc_err_set(err, EXIT_ERR, "cannot write %s: %s", path, strerror(errno));
	for (i = 1; i < n; i++)
		if (a[i].slot < a[i - 1].slot) {
			fclose(f);
			return dc_err_set(err, EXIT_ERR, "%s: arrivals not sorted by slot (record %zu)",
					  path, i);
		}
	if (fwrite(&h, sizeof(h), 1, f) != 1 || (n && fwrite(a, sizeof(*a), n, f) != n)) {
		fclose(f);
		return dc_err_set(err, EXIT_ERR, "writing %s failed: %s", path, strerror(errno));
	}
	if (fclose(f))
		return dc_err_set(err, EXIT_ERR, "writing %s failed: %s", path, strerror(errno));
	return 0;
}

/* Each record within what a CSV row may hold, and sorted: 0, or the
 * index of the first bad record + 1 with why set. */
static size_t bin_check(const struct dc_sim_arrival *a, size_t n, const char **why)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (a[i].prio >= DC_SW_PRIOS)
			*why = "priority out of range";
		else if (a[i].first_rtt > 1)
			*why = "first_rtt is not 0 or 1";
		else if (a[i].bytes > 1000000)
			*why = "bytes above 1000000";
		else if (i && a[i].slot < a[i - 1].slot)
			*why = "slot before the previous record's (not sorted)";
		else
			continue;
		return i + 1;
	}
	return 0;
}

/* Is the file a binary trace?  1 yes, 0 no (CSV), -1 cannot read it. */
static int is_bin(const char *path, struct dc_err *err)
{
	char m[8];
	FILE *f = fopen(path, "re");
	size_t got;

	if (!f) {
		dc_err_set(err, EXIT_ERR, "cannot open trace %s: %s", path, strerror(errno));
		return -1;
	}
	got = fread(m, 1, sizeof(m), f);
	fclose(f);
	return got == sizeof(m) && !memcmp(m, DC_SIM_BIN_MAGIC, sizeof(m));
}

static int map_bin(const char *path, struct dc_sim_trace *t, struct dc_err *err)
{
	const struct dc_sim_bin_hdr *h;
	const char *why = NULL;
	struct stat st;
	size_t bad;
	void *m;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return dc_err_set(err, EXIT_ERR, "cannot open trace %s: %s", path, strerror(errno));
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(*h)) {
		close(fd);
		return dc_err_set(err, EXIT_ERR, "%s: binary trace shorter than its header", path);
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return dc_err_set(err, EXIT_ERR, "cannot map %s: %s", path, strerror(errno));
	h = m;
	if (h->version != 1 || h->record_bytes != sizeof(struct dc_sim_arrival)) {
		dc_err_set(err, EXIT_ERR, "%s: binary trace version %u with %u-byte records; this "
			   "dcbpf reads version 1 with %zu-byte records", path, h->version,
			   h->record_bytes, sizeof(struct dc_sim_arrival));
		munmap(m, (size_t)st.st_size);
		return EXIT_ERR;
	}
	if (h->count > ((__u64)st.st_size - sizeof(*h)) / sizeof(struct dc_sim_arrival) ||
	    sizeof(*h) + h->count * sizeof(struct dc_sim_arrival) != (__u64)st.st_size) {
		dc_err_set(err, EXIT_ERR, "%s: the header counts %llu records, the file holds %llu "
			   "bytes of records (truncated or appended to?)", path,
			   (unsigned long long)h->count,
			   (unsigned long long)((__u64)st.st_size - sizeof(*h)));
		munmap(m, (size_t)st.st_size);
		return EXIT_ERR;
	}
	/* one pass now, in order, then the engine's pass reads it again */
	madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
	t->a = (struct dc_sim_arrival *)((char *)m + sizeof(*h));
	t->n = h->count;
	bad = bin_check(t->a, t->n, &why);
	if (bad) {
		munmap(m, (size_t)st.st_size);
		t->a = NULL;
		t->n = 0;
		return dc_err_set(err, EXIT_ERR, "%s: record %zu: %s", path, bad, why);
	}
	t->map = m;
	t->map_len = (size_t)st.st_size;
	return 0;
}

int dc_sim_trace_load(const char *path, __u64 slot_ns, struct dc_sim_trace *t, struct dc_err *err)
{
	int bin = is_bin(path, err);

	memset(t, 0, sizeof(*t));
	if (bin < 0)
		return EXIT_ERR;
	if (bin)
		return map_bin(path, t, err) ? EXIT_ERR : 0;
	return dc_sim_read_csv(path, slot_ns, &t->a, &t->n, err);
}

void dc_sim_trace_release(struct dc_sim_trace *t)
{
	if (t->map)
		munmap(t->map, t->map_len);
	else
		free(t->a);
	memset(t, 0, sizeof(*t));
}

int dc_sim_read_trace(const char *path, __u64 slot_ns, struct dc_sim_arrival **out, size_t *n,
		      struct dc_err *err)
{
	struct dc_sim_trace t;
	int rc = dc_sim_trace_load(path, slot_ns, &t, err);

	if (rc)
		return rc;
	if (t.map) {
		/* the caller owns (and frees) what it gets: a copy */
		*out = malloc((t.n ? t.n : 1) * sizeof(**out));
		if (!*out) {
			dc_sim_trace_release(&t);
			return dc_err_set(err, EXIT_ERR, "out of memory reading %s", path);
		}
		memcpy(*out, t.a, t.n * sizeof(**out));
		*n = t.n;
		dc_sim_trace_release(&t);
		return 0;
	}
	*out = t.a;
	*n = t.n;
	return 0;
}
