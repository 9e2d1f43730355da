/* usage.c - --help and the man page's SYNOPSIS and OPTIONS from the command and option
 * tables: an option or a command is documented where it is defined. */
#include "usage.h"

#include <stdbool.h>
#include <string.h>

#include "commands.h"
#include "options.h"

#define SUMMARY_COLUMN 39 /* --help: where a usage line's description starts */
#define HELP_COLUMN    28 /* --help: where an option's description starts */

static const char help_footer[] =
    "Output files: a regular file is replaced atomically; a device or FIFO is written in\n"
    "place, a symbolic link is followed; both are never replaced (docs/output.md).\n"
    "Exit status: 0 success, 1 the run failed (I/O error, or stdout could not be written),\n"
    "2 bad profile, command line, location or output path, 3 unsupported (e.g. O_DIRECT\n"
    "refused), 130 interrupted; a run crashed by --crash-after as asked exits 0.\n"
    "--crash-after shuts down only a dedicated test filesystem: on a (loop) block device,\n"
    "its root holding nothing but fsmix.fsN trees, lost+found and the way to the locations;\n"
    "never that of /, of the current directory or of an output (docs/durability.md).\n"
    "fsmix works in <location>/fsmix.fsN and never touches anything it did not create.\n"
    "Docs: docs/profile.md (the profile language), docs/ops.md (operations), man fsmix.\n";

/* Prints text's lines ('\n' between them): the first after `used` columns padded to column,
 * the others indented to column. */
static void print_at_column(FILE *out, int used, int column, const char *text)
{
	const char *line = text;
	for (bool first = true; line; first = false) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);
		fprintf(out, "%*s%.*s\n", first ? column - used : column, "", len, line);
		line = nl ? nl + 1 : NULL;
	}
}

static void print_usage_lines(FILE *out)
{
	bool first = true;
	for (size_t i = 0; i < n_commands; i++)
		for (int k = 0; k < 2 && commands[i].synopsis[k]; k++) {
			const char *syn = commands[i].synopsis[k], *sum = commands[i].summary[k];
			int used = fprintf(out, "%s%s", first ? "usage: " : "       ", syn);
			first = false;
			if (!sum) {
				fputc('\n', out);
				continue;
			}
			/* a usage line that reaches past the column has its description below */
			int column = used + 2 > SUMMARY_COLUMN ? used + 2 : SUMMARY_COLUMN;
			if (used > SUMMARY_COLUMN) {
				fputc('\n', out);
				used = 0;
				column = SUMMARY_COLUMN;
			}
			print_at_column(out, used, column, sum);
		}
}

static void print_option(FILE *out, const struct option_row *r)
{
	int used = 0;
	if (r->short_name)
		used = fprintf(out, "  -%c, --%s", r->short_name, r->name);
	else
		used = fprintf(out, "      --%s", r->name);
	if (r->value)
		used += fprintf(out, " %s", r->value);
	if (used + 2 > HELP_COLUMN) {
		fputc('\n', out);
		used = 0;
	}
	print_at_column(out, used, HELP_COLUMN, r->help);
}

void usage_print(FILE *out)
{
	print_usage_lines(out);
	fputc('\n', out);
	for (int s = 0; s < N_SECTIONS; s++) {
		if (s == SEC_HIDDEN)
			continue;
		fprintf(out, "%s\n", section_help_heading[s]);
		for (size_t i = 0; i < n_option_rows; i++)
			if (option_rows[i].section == (enum option_section)s)
				print_option(out, &option_rows[i]);
	}
	fputc('\n', out);
	fputs(help_footer, out);
}

/* Text for roff: '-' as "\-" (a minus, not a hyphen, so that it can be searched and copied). */
static void roff_text(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '-')
			fputs("\\-", out);
		else
			fputc(s[i], out);
	}
}

/* A synopsis word: "fsmix", a command and an option in bold, "..." and "|" as they are, the
 * rest (PROFILE, FILE, options) in italics; brackets around it in roman. */
static void roff_synopsis_word(FILE *out, const char *w, size_t len)
{
	size_t open = 0, close = 0;
	while (open < len && w[open] == '[')
		open++;
	while (close < len - open && w[len - 1 - close] == ']')
		close++;
	const char *core = w + open;
	size_t n = len - open - close;
	bool bold = core[0] == '-' || (n == 5 && !strncmp(core, "fsmix", 5));
	for (size_t i = 0; i < n_commands && !bold; i++)
		bold = strlen(commands[i].name) == n && !strncmp(core, commands[i].name, n);
	bool plain = (n == 3 && !strncmp(core, "...", 3)) || (n == 1 && core[0] == '|');
	fprintf(out, "%.*s%s", (int)open, w, plain ? "" : bold ? "\\fB" : "\\fI");
	roff_text(out, core, n);
	fprintf(out, "%s%.*s", plain ? "" : "\\fR", (int)close, core + n);
}

static void roff_synopsis(FILE *out)
{
	fputs(".\\\" fsmix --help-man: SYNOPSIS begin: generated from src/cli/commands.c; "
	      "tests/e2e/man_current.sh --write\n"
	      ".SH SYNOPSIS\n",
	      out);
	bool first = true;
	for (size_t i = 0; i < n_commands; i++)
		for (int k = 0; k < 2 && commands[i].synopsis[k]; k++) {
			if (!first)
				fputs(".br\n", out);
			first = false;
			const char *w = commands[i].synopsis[k];
			while (*w) {
				size_t len = strcspn(w, " ");
				roff_synopsis_word(out, w, len);
				w += len;
				if (*w)
					fputc(*w++, out);
			}
			fputc('\n', out);
		}
	fputs(".\\\" fsmix --help-man: SYNOPSIS end\n", out);
}

/* ".TP", the option's tag line, then "(the commands that take it) " and its paragraph. */
static void roff_option(FILE *out, const struct option_row *r)
{
	fputs(".TP\n", out);
	if (r->short_name)
		fprintf(out, "\\fB\\-%c\\fR, ", r->short_name);
	fputs("\\fB\\-\\-", out);
	roff_text(out, r->name, strlen(r->name));
	fputs("\\fR", out);
	if (r->value) {
		fputs(" \\fI", out);
		roff_text(out, r->value, strlen(r->value));
		fputs("\\fR", out);
	}
	fputc('\n', out);
	unsigned every = 0;
	for (size_t i = 0; i < n_commands; i++)
		every |= CMD_BIT(commands[i].id);
	if ((r->commands & every) != every) {
		const char *sep = "(";
		for (size_t i = 0; i < n_commands; i++)
			if (r->commands & CMD_BIT(commands[i].id)) {
				fprintf(out, "%s%s", sep, commands[i].name);
				sep = ", ";
			}
		fputs(") ", out);
	}
	fprintf(out, "%s\n", r->man);
}

static void roff_options(FILE *out)
{
	fputs(".\\\" fsmix --help-man: OPTIONS begin: generated from src/cli/options.c; "
	      "tests/e2e/man_current.sh --write\n"
	      ".SH OPTIONS\n",
	      out);
	for (int s = 0; s < N_SECTIONS; s++) {
		if (s == SEC_HIDDEN)
			continue;
		fprintf(out, ".SS %s\n", section_man_heading[s]);
		for (size_t i = 0; i < n_option_rows; i++)
			if (option_rows[i].section == (enum option_section)s)
				roff_option(out, &option_rows[i]);
	}
	fputs(".\\\" fsmix --help-man: OPTIONS end\n", out);
}

void usage_print_man(FILE *out)
{
	roff_synopsis(out);
	roff_options(out);
}
