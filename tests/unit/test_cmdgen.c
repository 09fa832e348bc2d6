// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * What the command table generates (loader/lib/gen.c) for the sample
 * program of tests/lib/cmdsample.h: the bash completion, run in bash, and
 * the man page.
 *
 *   test_cmdgen            run the checks
 *   test_cmdgen --bash     print the sample program's completion script
 *   test_cmdgen --man      print its man page
 */
#include "cmdsample.h"

/* ---- generated files ---- */

static char *gen(bool man)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (man)
		dc_gen_man(f, &app, "2024-01-01");
	else
		dc_gen_bash_completion(f, &app);
	fclose(f);
	return buf;
}

/* Run the completion for words (the last is the one completed) in bash. */
static char *complete_words(const char *script_path, const char *words)
{
	char cmd[1024], *res = NULL;
	size_t len = 0;
	FILE *p, *m;
	int c;

	snprintf(cmd, sizeof(cmd),
		 "bash -c 'source %s; COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _demo; "
		 "echo \"${COMPREPLY[*]}\"' 2>&1", script_path, words);
	p = popen(cmd, "r");
	m = open_memstream(&res, &len);
	while (p && (c = fgetc(p)) != EOF)
		fputc(c, m);
	if (p)
		pclose(p);
	fclose(m);
	if (len && res[len - 1] == '\n')
		res[len - 1] = '\0';
	return res;
}

static void test_bash(void)
{
	static const struct {
		const char *words, *want;
	} cases[] = {
		{ "demo sw", "switch" },
		{ "demo \"\"", "help status get set switch sim trace" },
		{ "demo switch \"\"", "help up down list" },
		{ "demo switch up --xdp-mode \"\"", "generic native" },
		{ "demo switch up --xdp-mode = n", "native" },
		{ "demo switch up --r", "--rate-mbps" },
		{ "demo sim --alg c", "credence" },
		{ "demo --pin-dir /tmp sw", "switch" },
		{ "demo -d /tmp switch l", "list" },
		{ "demo --j", "--json" },
		{ "demo switch up --ports 3 --xdp-mode native --p", "--ports --pin-dir" },
		{ "demo secret", "" },
	};
	char path[] = "/tmp/test_cmd_bash.XXXXXX", cmd[256];
	char *script = gen(false), *got;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	unsigned int i;

	CHECK("completion: the script names the function", script && strstr(script, "complete -F _demo demo\n"),
	      "no complete line");
	if (!f || system("command -v bash >/dev/null 2>&1")) {
		printf("SKIP: completion in bash: %s\n", f ? "bash not installed" : "no temporary file");
		free(script);
		return;
	}
	fputs(script, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "bash -n %s", path);
	CHECK("completion: bash -n accepts the script", system(cmd) == 0, "syntax error");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[160];

		got = complete_words(path, cases[i].words);
		snprintf(name, sizeof(name), "completion: %s", cases[i].words);
		CHECK(name, got && !strcmp(got, cases[i].want), "got '%s', want '%s'", got, cases[i].want);
		free(got);
	}
	got = complete_words(path, "demo sim --out /et");
	CHECK("completion: a DIR option completes directories", got && !strcmp(got, "/etc"), "got '%s'", got);
	free(got);
	unlink(path);
	free(script);
}

static void test_man(void)
{
	char path[] = "/tmp/test_cmd_man.XXXXXX", cmd[256], *page = gen(true), *warn = NULL;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL, *p;
	size_t len = 0;
	int c;

	CHECK("man: title, sections, every command", page && strstr(page, ".TH DEMO 8 \"2024-01-01\" \"demo 1.2.3\"") &&
	      strstr(page, ".SH GLOBAL OPTIONS\n") && strstr(page, ".SS \"demo switch up\"\n") &&
	      strstr(page, ".SS \"demo trace\"\n") && !strstr(page, "secret") && strstr(page, ".SH EXIT STATUS\n"),
	      "page:\n%s", page ? page : "");
	CHECK("man: options with escaped dashes", page &&
	      strstr(page, ".TP\n\\fB\\-p\\fR, \\fB\\-\\-ports\\fR \\fIN\\fR\nports to attach (required; allowed 1..64)\n"),
	      "page:\n%s", page ? page : "");
	if (!f || system("command -v groff >/dev/null 2>&1")) {
		printf("SKIP: man page through groff: %s\n", f ? "groff not installed" : "no temporary file");
		free(page);
		return;
	}
	fputs(page, f);
	fclose(f);
	/* -ww: every warning; a clean page prints none */
	snprintf(cmd, sizeof(cmd), "groff -man -Tutf8 -ww -z %s 2>&1", path);
	p = popen(cmd, "r");
	f = open_memstream(&warn, &len);
	while (p && (c = fgetc(p)) != EOF)
		fputc(c, f);
	c = p ? pclose(p) : -1;
	fclose(f);
	CHECK("man: groff renders it without a warning", c == 0 && len == 0, "groff exit %d said: %s", c,
	      warn ? warn : "");
	free(warn);
	unlink(path);
	free(page);
}
int main(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--bash") || !strcmp(argv[1], "--man"))) {
		char *s = gen(!strcmp(argv[1], "--man"));

		fputs(s, stdout);
		free(s);
		return 0;
	}
	test_bash();
	test_man();
	free(out_buf);
	free(err_buf);
	return check_failed;
}
