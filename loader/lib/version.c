// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "json.h"
#include "version.h"

const char *dc_version(void)
{
	return DCBPF_VERSION;
}

const char *dc_version_git(void)
{
	return DCBPF_GIT[0] ? DCBPF_GIT : "unknown";
}

const char *dc_version_features(void)
{
	return DCBPF_FEATURES;
}

const char *dc_libbpf_compiled(void)
{
	return DCBPF_LIBBPF_COMPILED;
}

const char *dc_libbpf_running(void)
{
	static char buf[24];

	if (!buf[0])
		snprintf(buf, sizeof(buf), "%u.%u", libbpf_major_version(), libbpf_minor_version());
	return buf;
}

void dc_version_print(FILE *out, const char *prog)
{
	fprintf(out,
		"%s %s\n"
		"git: %s\n"
		"libbpf: %s (compiled against %s)\n"
		"features: %s\n",
		prog, dc_version(), dc_version_git(), dc_libbpf_running(), dc_libbpf_compiled(),
		dc_version_features()[0] ? dc_version_features() : "(none)");
}

void dc_version_json(struct jw *j)
{
	const char *p = dc_version_features();
	char word[64];

	jw_obj(j, NULL);
	jw_str(j, "version", dc_version());
	jw_str(j, "git", dc_version_git());
	jw_obj(j, "libbpf");
	jw_str(j, "running", dc_libbpf_running());
	jw_str(j, "compiled", dc_libbpf_compiled());
	jw_end_obj(j);
	jw_arr(j, "features");
	while (*p) {
		size_t n = strcspn(p, " ");

		if (n && n < sizeof(word)) {
			memcpy(word, p, n);
			word[n] = 0;
			jw_str(j, NULL, word);
		}
		p += n;
		p += strspn(p, " ");
	}
	jw_end_arr(j);
	jw_end_obj(j);
	jw_done(j);
}
