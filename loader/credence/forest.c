// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Credence's model file: a versioned, line-oriented text format
 * (docs/credence.md, "Model file") read into struct dc_rf_model and
 * written back atomically.  The parser is strict — every refusal names
 * the line and what to fix — because a model that reaches the data plane
 * decides the fate of every packet of a switch.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "credence/forest.h"

#define DC_RF_MAGIC "dcbpf-forest"
/* Largest model file accepted: a full model (16 trees × 128 nodes, the
 * longest node line under 60 characters) is below 128 KiB; anything
 * bigger is not a model. */
#define DC_RF_FILE_MAX (256 * 1024)
/* Longest line accepted (a node line is at most ~50 characters). */
#define DC_RF_LINE_MAX 160
/* Most whitespace-separated words on any line. */
#define DC_RF_WORDS_MAX 8

static const char *const feat_names[DC_RF_FEATURES] = { "qlen", "occ", "qlen_ewma", "occ_ewma" };

const char *dc_rf_feature_name(unsigned int f)
{
	return f < DC_RF_FEATURES ? feat_names[f] : "?";
}

static void say(char *why, size_t whylen, unsigned int line, const char *fmt, ...)
{
	va_list ap;
	int off = 0;

	if (!why || !whylen)
		return;
	if (line)
		off = snprintf(why, whylen, "line %u: ", line);
	if (off < 0 || (size_t)off >= whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why + off, whylen - (size_t)off, fmt, ap);
	va_end(ap);
}

/* A plain unsigned decimal: digits only (no sign, no hex, no exponent, no
 * "nan"/"inf"), no leading zeros except "0" itself, at most `max`. */
static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;
	const char *p = s;

	if (!*p)
		return -1;
	if (p[0] == '0' && p[1])
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		if (v > (ULLONG_MAX - 9) / 10)
			return -1;
		v = v * 10 + (unsigned long long)(*p - '0');
		if (v > max)
			return -1;
	}
	*out = v;
	return 0;
}

/* Split a line (NUL-terminated, modified) at spaces and tabs. */
static int split_words(char *line, char **w)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == DC_RF_WORDS_MAX)
			return -1;
		w[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

/* Parser state: what the next meaningful line must be. */
enum expect { X_MAGIC, X_HEADER, X_TREE, X_NODE, X_END, X_DONE };

/* Number words, with the name of the field for messages. */
#define NUM(idx, max, dst, what, fix)                                                  \
	do {                                                                           \
		unsigned long long v_;                                                 \
		if (parse_uint(w[idx], (max), &v_)) {                                  \
			say(why, whylen, lineno, "%s '%s' is not an unsigned decimal " \
			    "integer in 0…%llu (%s)", what, w[idx],                    \
			    (unsigned long long)(max), fix);                           \
			goto fail;                                                     \
		}                                                                      \
		dst = v_;                                                              \
	} while (0)

int dc_forest_parse(const char *buf, size_t len, struct dc_rf_model *out, char *why, size_t whylen)
{
	struct dc_rf_model *m;
	/* the line each node came from, for dc_rf_validate's findings */
	unsigned int (*node_line)[DC_RF_NODES_MAX];
	unsigned int lineno = 0, tree = 0, node = 0, header_line = 0;
	enum expect ex = X_MAGIC;
	size_t pos = 0;
	int err, et, en;

	if (len > DC_RF_FILE_MAX) {
		say(why, whylen, 0, "file is %zu bytes, larger than any model (limit %d bytes)", len,
		    DC_RF_FILE_MAX);
		return -1;
	}
	m = calloc(1, sizeof(*m));
	node_line = calloc(DC_RF_TREES_MAX, sizeof(*node_line));
	if (!m || !node_line) {
		free(m);
		free(node_line);
		say(why, whylen, 0, "out of memory");
		return -1;
	}
	while (pos < len) {
		char line[DC_RF_LINE_MAX + 1], *w[DC_RF_WORDS_MAX];
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		int nw;

		lineno++;
		if (!nl) {
			say(why, whylen, lineno, "file ends without a newline (truncated?)");
			goto fail;
		}
		if (ll > DC_RF_LINE_MAX) {
			say(why, whylen, lineno, "line longer than %d characters", DC_RF_LINE_MAX);
			goto fail;
		}
		if (memchr(buf + pos, '\0', ll)) {
			say(why, whylen, lineno, "NUL byte in the file (not a text model)");
			goto fail;
		}
		if (memchr(buf + pos, '\r', ll)) {
			say(why, whylen, lineno, "carriage return in the line (DOS line ends: convert to \\n, e.g. dos2unix)");
			goto fail;
		}
		memcpy(line, buf + pos, ll);
		line[ll] = '\0';
		pos += ll + 1;
		if (line[0] == '#')
			continue;
		nw = split_words(line, w);
		if (nw < 0) {
			say(why, whylen, lineno, "more than %d words", DC_RF_WORDS_MAX);
			goto fail;
		}
		if (nw == 0)
			continue;
		if (ex == X_DONE) {
			say(why, whylen, lineno, "'%s' after 'end' (trailing garbage: remove it)", w[0]);
			goto fail;
		}
		switch (ex) {
		case X_MAGIC: {
			unsigned long long ver;

			if (nw != 2 || strcmp(w[0], DC_RF_MAGIC)) {
				say(why, whylen, lineno, "expected '%s %d' as the first line (not a dcbpf model file)",
				    DC_RF_MAGIC, DC_RF_VERSION);
				goto fail;
			}
			if (parse_uint(w[1], UINT_MAX, &ver) || ver != DC_RF_VERSION) {
				say(why, whylen, lineno, "model format version '%s' is not supported (this dcbpf reads version %d: retrain or convert the model)",
				    w[1], DC_RF_VERSION);
				goto fail;
			}
			m->version = DC_RF_VERSION;
			ex = X_HEADER;
			break;
		}
		case X_HEADER:
			if (nw != 6 || strcmp(w[0], "trees") || strcmp(w[2], "depth") ||
			    strcmp(w[4], "ewma_period_ns")) {
				say(why, whylen, lineno, "expected 'trees N depth D ewma_period_ns NS'");
				goto fail;
			}
			NUM(1, DC_RF_TREES_MAX, m->n_trees, "tree count", "1…16 trees");
			NUM(3, DC_RF_DEPTH_MAX, m->depth, "depth", "at most 8 levels");
			NUM(5, DC_U32_MAX, m->ewma_period_ns, "EWMA period", "nanoseconds, > 0");
			if (!m->n_trees) {
				say(why, whylen, lineno, "a model needs at least one tree");
				goto fail;
			}
			if (!m->ewma_period_ns) {
				say(why, whylen, lineno, "ewma_period_ns must be above 0 (one RTT in ns)");
				goto fail;
			}
			header_line = lineno;
			ex = X_TREE;
			break;
		case X_TREE: {
			unsigned long long t;

			if (!strcmp(w[0], "end") && nw == 1) {
				say(why, whylen, lineno, "'end' after %u trees, the header declares %u",
				    tree, m->n_trees);
				goto fail;
			}
			if (nw != 4 || strcmp(w[0], "tree") || strcmp(w[2], "nodes")) {
				say(why, whylen, lineno, "expected 'tree %u nodes K'", tree);
				goto fail;
			}
			if (tree >= m->n_trees) {
				say(why, whylen, lineno, "tree %s beyond the %u trees the header declares",
				    w[1], m->n_trees);
				goto fail;
			}
			if (parse_uint(w[1], UINT_MAX, &t) || t != tree) {
				say(why, whylen, lineno, "tree '%s' out of order: expected tree %u", w[1],
				    tree);
				goto fail;
			}
			NUM(3, DC_RF_NODES_MAX, m->n_nodes[tree], "node count",
			    "1…128 nodes a tree");
			if (!m->n_nodes[tree]) {
				say(why, whylen, lineno, "tree %u has no nodes", tree);
				goto fail;
			}
			node = 0;
			ex = X_NODE;
			break;
		}
		case X_NODE: {
			struct dc_rf_node *n = &m->node[tree][node];
			unsigned long long idx;
			unsigned int f;

			if (!strcmp(w[0], "tree") || !strcmp(w[0], "end")) {
				say(why, whylen, lineno, "tree %u declares %u nodes but has %u",
				    tree, m->n_nodes[tree], node);
				goto fail;
			}
			if (parse_uint(w[0], UINT_MAX, &idx) || idx >= m->n_nodes[tree]) {
				say(why, whylen, lineno, "node index '%s' out of range: tree %u has %u nodes (0…%u)",
				    w[0], tree, m->n_nodes[tree], m->n_nodes[tree] - 1);
				goto fail;
			}
			if (idx != node) {
				say(why, whylen, lineno, "node %s out of order: expected node %u", w[0], node);
				goto fail;
			}
			if (nw >= 2 && !strcmp(w[1], "leaf")) {
				if (nw != 3) {
					say(why, whylen, lineno, "expected '%u leaf P' (P = P(drop) in Q16, 0…65536)",
					    node);
					goto fail;
				}
				NUM(2, DC_Q16_ONE, n->value, "leaf probability",
				    "P(drop) in Q16: 0…65536, 65536 = 1");
				n->flags = DC_RF_NODE_LEAF;
			} else if (nw >= 2 && !strcmp(w[1], "split")) {
				if (nw != 6) {
					say(why, whylen, lineno, "expected '%u split FEATURE THRESHOLD LEFT RIGHT'",
					    node);
					goto fail;
				}
				for (f = 0; f < DC_RF_FEATURES; f++)
					if (!strcmp(w[2], feat_names[f]))
						break;
				if (f == DC_RF_FEATURES) {
					say(why, whylen, lineno, "unknown feature '%s' (qlen, occ, qlen_ewma or occ_ewma)",
					    w[2]);
					goto fail;
				}
				n->feature = (__u8)f;
				NUM(3, DC_U32_MAX, n->value, "threshold", "bytes, 0…4294967295");
				NUM(4, DC_RF_NODES_MAX - 1, n->left, "left child index",
				    "a node index of the same tree, 1…127");
				NUM(5, DC_RF_NODES_MAX - 1, n->right, "right child index",
				    "a node index of the same tree, 1…127");
			} else {
				say(why, whylen, lineno, "expected 'leaf' or 'split' after the node index");
				goto fail;
			}
			node_line[tree][node] = lineno;
			if (++node == m->n_nodes[tree]) {
				tree++;
				ex = tree == m->n_trees ? X_END : X_TREE;
			}
			break;
		}
		case X_END:
		default:
			if (nw != 1 || strcmp(w[0], "end")) {
				say(why, whylen, lineno, "expected 'end' after the last tree, got '%s'", w[0]);
				goto fail;
			}
			ex = X_DONE;
			break;
		}
	}
	if (ex != X_DONE) {
		const char *what = ex == X_MAGIC ? "the magic line" : ex == X_HEADER ? "the header" :
				   ex == X_TREE ? "a tree" : ex == X_NODE ? "a node" : "'end'";

		say(why, whylen, lineno + 1, "file ends where %s was expected (truncated)", what);
		goto fail;
	}
	err = dc_rf_validate(m, &et, &en);
	if (err) {
		unsigned int l = et < 0 ? header_line :
				 en < 0 ? node_line[et][0] : node_line[et][en];

		if (et >= 0 && en >= 0)
			say(why, whylen, l, "tree %d node %d: %s", et, en, dc_rf_strerror(err));
		else if (et >= 0)
			say(why, whylen, l, "tree %d: %s", et, dc_rf_strerror(err));
		else
			say(why, whylen, l, "%s", dc_rf_strerror(err));
		goto fail;
	}
	memcpy(out, m, sizeof(*m));
	free(m);
	free(node_line);
	return 0;
fail:
	free(m);
	free(node_line);
	return -1;
}

int dc_forest_read(const char *path, struct dc_rf_model *m, char *why, size_t whylen)
{
	char msg[256];
	char *buf = NULL;
	struct stat st;
	size_t got = 0;
	int fd, rc = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s: not a regular file", path);
		goto out;
	}
	if (st.st_size > DC_RF_FILE_MAX) {
		snprintf(why, whylen, "%s: %lld bytes, larger than any model (limit %d bytes)", path,
			 (long long)st.st_size, DC_RF_FILE_MAX);
		goto out;
	}
	/* one byte more than the limit: a file growing while read is refused too */
	buf = malloc(DC_RF_FILE_MAX + 1);
	if (!buf) {
		snprintf(why, whylen, "%s: out of memory", path);
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, buf + got, DC_RF_FILE_MAX + 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(why, whylen, "%s: read failed: %s", path, strerror(errno));
			goto out;
		}
		if (!r)
			break;
		got += (size_t)r;
		if (got > DC_RF_FILE_MAX)
			break;
	}
	if (dc_forest_parse(buf, got, m, msg, sizeof(msg))) {
		/* "path:line: reason" as compilers say it */
		if (!strncmp(msg, "line ", 5)) {
			char *colon = strchr(msg, ':');
			snprintf(why, whylen, "%s:%.*s%s", path, (int)(colon - msg - 5), msg + 5, colon);
		} else {
			snprintf(why, whylen, "%s: %s", path, msg);
		}
		goto out;
	}
	rc = 0;
out:
	free(buf);
	close(fd);
	return rc;
}

int dc_forest_format(FILE *f, const struct dc_rf_model *m)
{
	__u32 t, i;

	fprintf(f, "%s %u\n", DC_RF_MAGIC, m->version);
	fprintf(f, "# Credence drop predictor (docs/credence.md): features in bytes; a split sends\n"
		   "# x[FEATURE] <= THRESHOLD left; a leaf holds P(drop) in Q16 (65536 = 1).\n");
	fprintf(f, "trees %u depth %u ewma_period_ns %u\n", m->n_trees, m->depth, m->ewma_period_ns);
	for (t = 0; t < m->n_trees; t++) {
		fprintf(f, "tree %u nodes %u\n", t, m->n_nodes[t]);
		for (i = 0; i < m->n_nodes[t]; i++) {
			const struct dc_rf_node *n = &m->node[t][i];

			if (n->flags & DC_RF_NODE_LEAF)
				fprintf(f, "%u leaf %u\n", i, n->value);
			else
				fprintf(f, "%u split %s %u %u %u\n", i, feat_names[n->feature],
					n->value, n->left, n->right);
		}
	}
	fprintf(f, "end\n");
	return ferror(f) ? -EIO : 0;
}

int dc_forest_write(const char *path, const struct dc_rf_model *m)
{
	char tmp[PATH_MAX];
	int fd, err, et, en;
	FILE *f;

	if (dc_rf_validate(m, &et, &en))
		return -EINVAL;
	if (snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644)) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	err = dc_forest_format(f, m);
	if (fflush(f) && !err)
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (fclose(f) && !err)
		err = -EIO;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

void dc_forest_show(FILE *f, const struct dc_rf_model *m)
{
	__u32 t, i;

	fprintf(f, "model version %u: %u trees, depth %u, EWMA period %u ns\n", m->version,
		m->n_trees, m->depth, m->ewma_period_ns);
	for (t = 0; t < m->n_trees; t++) {
		/* depth of each node, for indentation (children follow parents) */
		__u8 d[DC_RF_NODES_MAX] = { 0 };

		fprintf(f, "tree %u (%u nodes)\n", t, m->n_nodes[t]);
		for (i = 0; i < m->n_nodes[t]; i++) {
			const struct dc_rf_node *n = &m->node[t][i];

			fprintf(f, "%*s[%u] ", 2 + 2 * d[i], "", i);
			if (n->flags & DC_RF_NODE_LEAF) {
				fprintf(f, "P(drop) = %.4f\n", (double)n->value / (double)DC_Q16_ONE);
				continue;
			}
			fprintf(f, "%s <= %u ? [%u] : [%u]\n", feat_names[n->feature], n->value, n->left,
				n->right);
			if (n->left < DC_RF_NODES_MAX)
				d[n->left] = d[i] + 1;
			if (n->right < DC_RF_NODES_MAX)
				d[n->right] = d[i] + 1;
		}
	}
}
