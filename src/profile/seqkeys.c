/* seqkeys.c - sequence=: filebench's flowops in order on a file kept open (seqkeys.h). */
#include "seqkeys.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"

/* Where a step may run: with no file open (it opens one, or picks a file of its own), or on
 * the open file (and close ends it). */
enum step_kind { STEP_OPENS, STEP_ALONE, STEP_ON_FILE, STEP_CLOSES };

/* The steps: their word, their op (ops.def), where they run, whether *N repeats them, and the
 * calls they make (fsmix check, docs/ops.md). */
static const struct seq_step {
	const char *word;
	enum op_id op;
	enum step_kind kind;
	bool repeats;
	const char *calls;
} seq_steps[] = {
    {"create", OP_seq_create, STEP_OPENS, false, "openat(O_CREAT|O_EXCL|O_RDWR) of a new file"},
    {"open", OP_seq_open, STEP_OPENS, false, "openat() of a random file"},
    {"write", OP_seq_write, STEP_ON_FILE, true, "lseek(random offset), write()"},
    {"writeall", OP_seq_writeall, STEP_ON_FILE, false,
     "write() from offset 0 to the file's size (a created file: a create's size)"},
    {"append", OP_seq_append, STEP_ON_FILE, true, "lseek(0, SEEK_END), write()"},
    {"read", OP_seq_read, STEP_ON_FILE, true, "lseek(random offset), read()"},
    {"readall", OP_seq_readall, STEP_ON_FILE, true, "lseek(0), read() until it returns 0"},
    {"fsync", OP_seq_fsync, STEP_ON_FILE, false, "fsync()"},
    {"fdatasync", OP_seq_fdatasync, STEP_ON_FILE, false, "fdatasync()"},
    {"close", OP_seq_close, STEP_CLOSES, false, "close()"},
    {"stat", OP_seq_stat, STEP_ALONE, false, "fstatat() of a random file"},
    {"rename", OP_seq_rename, STEP_ALONE, false,
     "renameat() of a random file to another data directory"},
    {"delete", OP_seq_delete, STEP_ALONE, false, "unlinkat() of a random file"},
};
#define N_STEPS       (sizeof(seq_steps) / sizeof(seq_steps[0]))
#define SEQ_TIMES_MAX 1000000u

static const struct seq_step *step_of_word(const char *w)
{
	for (size_t i = 0; i < N_STEPS; i++)
		if (strcmp(seq_steps[i].word, w) == 0)
			return &seq_steps[i];
	return NULL;
}

static const struct seq_step *step_of_op(unsigned op)
{
	for (size_t i = 0; i < N_STEPS; i++)
		if ((unsigned)seq_steps[i].op == op)
			return &seq_steps[i];
	return NULL;
}

/* One token "word" or "word*N" into *out; NULL or the message in err. */
static const char *parse_token(char *tok, unsigned no, struct plan_step *out, char *err,
                               size_t errlen)
{
	char *star = strchr(tok, '*');
	uint64_t n = 1;
	if (star) {
		char *end;
		*star = '\0';
		n = strtoull(star + 1, &end, 10);
		if (!star[1] || *end || star[1] == '-' || star[1] == '+' || n < 1 ||
		    n > SEQ_TIMES_MAX) {
			snprintf(err, errlen, "step %u '%s*%s': N of *N must be 1..%u", no, tok,
			         star + 1, SEQ_TIMES_MAX);
			return err;
		}
	}
	const struct seq_step *s = step_of_word(tok);
	if (!s) {
		snprintf(err, errlen,
		         "step %u '%s' is no step: create, open, write, writeall, append, read, "
		         "readall, fsync, fdatasync, close, stat, rename or delete",
		         no, tok);
		return err;
	}
	if (star && !s->repeats) {
		snprintf(err, errlen,
		         "step %u '%s*%" PRIu64 "': only write, append, read and readall "
		         "take *N",
		         no, tok, n);
		return err;
	}
	*out = (struct plan_step){.op = (uint8_t)s->op, .times = (uint32_t)n};
	return NULL;
}

/* The order's rules: a step on the file needs one open, a step that opens or stands alone
 * needs none, and the sequence ends with the file closed. An open step's `writes` is set when a
 * step before its close writes. */
static const char *check_order(struct plan_group *g, char *err, size_t errlen)
{
	int open_at = -1; /* the step that opened the file, -1: none open */
	for (uint32_t i = 0; i < g->n_seq; i++) {
		const struct seq_step *s = step_of_op(g->seq[i].op);
		bool on_file = s->kind == STEP_ON_FILE || s->kind == STEP_CLOSES;
		if (on_file && open_at < 0) {
			snprintf(err, errlen,
			         "step %u '%s' needs an open file: put create or open before it",
			         i + 1, s->word);
			return err;
		}
		if (!on_file && open_at >= 0) {
			snprintf(err, errlen,
			         "step %u '%s' with a file open (step %d '%s'): close it first",
			         i + 1, s->word, open_at + 1, step_of_op(g->seq[open_at].op)->word);
			return err;
		}
		if (s->kind == STEP_OPENS)
			open_at = (int)i;
		else if (s->kind == STEP_CLOSES)
			open_at = -1;
		else if (on_file &&
		         (op_table[s->op].flags & (OPF_WRITE | OPF_FSYNC | OPF_FDATASYNC)))
			g->seq[open_at].writes = true;
	}
	if (open_at >= 0) {
		snprintf(err, errlen, "ends with the file of step %d '%s' open: end it with close",
		         open_at + 1, step_of_op(g->seq[open_at].op)->word);
		return err;
	}
	return NULL;
}

const char *seqkeys_parse(const char *text, struct plan_group *g, char *err, size_t errlen)
{
	char buf[2048];
	g->n_seq = 0;
	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "longer than %zu characters", sizeof(buf) - 1);
		return err;
	}
	memcpy(buf, text, strlen(text) + 1);
	unsigned no = 0;
	char *save = NULL;
	for (char *p = buf;; p = NULL) {
		char *tok = strtok_r(p, ",", &save);
		if (!tok)
			break;
		while (*tok == ' ' || *tok == '\t')
			tok++;
		size_t len = strlen(tok);
		while (len && (tok[len - 1] == ' ' || tok[len - 1] == '\t'))
			tok[--len] = '\0';
		if (++no > PLAN_SEQ_MAX) {
			snprintf(err, errlen, "more than %d steps", PLAN_SEQ_MAX);
			g->n_seq = 0;
			return err;
		}
		if (parse_token(tok, no, &g->seq[g->n_seq], err, errlen)) {
			g->n_seq = 0;
			return err;
		}
		g->n_seq++;
	}
	/* strtok_r skips empty fields: "a,,b" and a trailing comma are typos, not steps */
	if (!g->n_seq || strstr(text, ",,") || text[strlen(text) - 1] == ',' || text[0] == ',') {
		snprintf(err, errlen, "%s",
		         g->n_seq ? "an empty step (two commas, or a comma at an end)"
		                  : "no step: name at least one, e.g. open,readall,close");
		g->n_seq = 0;
		return err;
	}
	if (check_order(g, err, errlen)) {
		g->n_seq = 0;
		return err;
	}
	return NULL;
}

static struct src_loc where(const struct section *s, enum key_id k)
{
	return s->set[k].set ? s->set[k].loc : s->loc;
}

/* Key k must be above 0 for step `step`, the first that uses it (no mix replaces it): one
 * message per key, at the key's line when it is set to 0, else at sequence's. */
static void need(struct diag *d, const struct section *tg, enum key_id k, const char *step)
{
	const struct setting *st = &tg->set[k];
	unsigned line = tg->set[KEY_sequence].loc.line;
	if (setting_u(tg, k) || (st->attempted && !st->set))
		return;
	if (st->set)
		diag_error(d, DIAG_MISSING, st->loc, tg->name, key_table[k].name,
		           "0, but sequence step '%s' (line %u) needs it above 0", step, line);
	else
		diag_error(d, DIAG_MISSING, where(tg, KEY_sequence), tg->name, key_table[k].name,
		           "missing: sequence step '%s' (line %u) needs it", step, line);
}

/* What the steps need of the size keys, and the keys they do not use. */
static void check_keys(struct diag *d, const struct section *tg, const struct plan_group *g)
{
	bool wmix = iosize_set(&g->wmix), rmix = iosize_set(&g->rmix);
	/* the first step that needs each key */
	const char *wbs = NULL, *wsize = NULL, *rbs = NULL, *rsize = NULL;
	for (uint32_t i = 0; i < g->n_seq; i++) {
		enum op_id op = (enum op_id)g->seq[i].op;
		const char *w = step_of_op(op)->word;
		bool wkeys = (op == OP_seq_write || op == OP_seq_append) && !wmix;
		if (!wbs && (wkeys || op == OP_seq_writeall))
			wbs = w;
		if (!wsize && wkeys)
			wsize = w;
		if (!rbs && (op == OP_seq_readall || (op == OP_seq_read && !rmix)))
			rbs = w;
		if (!rsize && op == OP_seq_read && !rmix)
			rsize = w;
	}
	if (wbs)
		need(d, tg, KEY_write_blocksize, wbs);
	if (wsize)
		need(d, tg, KEY_write_size, wsize);
	if (rbs)
		need(d, tg, KEY_read_blocksize, rbs);
	if (rsize)
		need(d, tg, KEY_read_size, rsize);
	static const enum key_id unused[] = {KEY_write_random, KEY_write_stride, KEY_read_random,
	                                     KEY_read_skip};
	for (size_t i = 0; i < sizeof(unused) / sizeof(unused[0]); i++)
		if (setting_u(tg, unused[i]))
			diag_error(
			    d, DIAG_CONFLICT, where(tg, unused[i]), tg->name,
			    key_table[unused[i]].name,
			    "cannot be combined with sequence (line %u): its write and read steps "
			    "move one extent from one offset",
			    tg->set[KEY_sequence].loc.line);
}

/* sequence_hold=1: the sequence is one open, steps on its file and a close (so every loop after
 * the first starts on the file kept open), and one operation in flight (the file is the
 * worker's, not an in-flight context's). */
static void check_hold(struct diag *d, const struct section *tg, const struct plan_group *g)
{
	unsigned line = tg->set[KEY_sequence].loc.line;
	bool shape =
	    g->n_seq >= 2 && g->seq[0].op == OP_seq_open && g->seq[g->n_seq - 1].op == OP_seq_close;
	for (uint32_t i = 1; shape && i + 1 < g->n_seq; i++)
		shape = step_of_op(g->seq[i].op)->kind == STEP_ON_FILE;
	if (!shape)
		diag_error(
		    d, DIAG_CONFLICT, where(tg, KEY_sequence_hold), tg->name, "sequence_hold",
		    "needs a sequence (line %u) of one open, steps on its file and a close, "
		    "e.g. open,write*100,close: the file it keeps open is the one open takes",
		    line);
	if (setting_u(tg, KEY_iodepth) > 1)
		diag_error(d, DIAG_CONFLICT, where(tg, KEY_sequence_hold), tg->name,
		           "sequence_hold",
		           "cannot be combined with iodepth above 1 (line %u): the file kept open "
		           "is the thread's, one operation at a time",
		           tg->set[KEY_iodepth].loc.line);
}

void seqkeys_group(struct diag *d, const struct section *tg, struct plan_group *g)
{
	char err[512];
	if (g->sequence_hold && !g->sequence)
		diag_error(d, DIAG_MISSING, where(tg, KEY_sequence_hold), tg->name, "sequence_hold",
		           "needs sequence=: the file it keeps open is a sequence's, e.g. "
		           "sequence=open,read,close");
	if (!g->sequence)
		return;
	unsigned line = tg->set[KEY_sequence].loc.line;
	g->weight[OP_sequence] = 1; /* also when bad: no second "no weighted operation" error */
	g->total_weight = 1;
	if (tg->aging) {
		diag_error(d, DIAG_CONFLICT, where(tg, KEY_sequence), tg->name, "sequence",
		           "not in an aging thread group (it creates, appends and deletes)");
		return;
	}
	for (int op = 0; op < OP_COUNT; op++) {
		enum key_id wk = key_weight_of((enum op_id)op);
		if (!(key_table[wk].flags & KF_HIDDEN) && tg->set[wk].set)
			diag_error(d, DIAG_CONFLICT, tg->set[wk].loc, tg->name, key_table[wk].name,
			           "cannot be combined with sequence (line %u): a group with a "
			           "sequence runs only its steps",
			           line);
	}
	if (seqkeys_parse(g->sequence, g, err, sizeof(err))) {
		diag_error(d, DIAG_BAD_VALUE, where(tg, KEY_sequence), tg->name, "sequence",
		           "'%s': %s", g->sequence, err);
		return;
	}
	for (uint32_t i = 0; i < g->n_seq; i++)
		g->weight[g->seq[i].op]++;
	check_keys(d, tg, g);
	if (g->sequence_hold)
		check_hold(d, tg, g);
}

/* Ops that take a file's name from under a descriptor kept open between loops: the file kept
 * open is out of the pool's hold between them, so no thread may delete, rename or link it. */
#define UNHOLDS (OPF_DELETES | OPF_RENAMES | OPF_META | OPF_LINKS)

void seqkeys_plan(struct diag *d, const struct profile *p, const struct plan *pl)
{
	for (size_t h = 0; h < pl->n_groups; h++) {
		const struct plan_group *g = &pl->groups[h];
		if (!g->sequence_hold || !g->n_seq)
			continue;
		for (size_t o = 0; o < pl->n_groups; o++) {
			const struct plan_group *x = &pl->groups[o];
			if (x->phase != g->phase ||
			    (g->bindfs >= 0 && x->bindfs >= 0 && x->bindfs != g->bindfs))
				continue;
			int op = 0;
			while (op < OP_COUNT && !(x->weight[op] && (op_table[op].flags & UNHOLDS)))
				op++;
			if (op == OP_COUNT)
				continue;
			diag_error(d, DIAG_CONFLICT, where(p->tg[h], KEY_sequence_hold), g->name,
			           "sequence_hold",
			           "cannot keep files open while [%s] (line %u) may %s them "
			           "(its %s) on the same filesystem in the same phase",
			           x->name, p->tg[o]->loc.line,
			           op_table[op].flags & OPF_DELETES ? "delete" : "rename or link",
			           op_table[op].name);
			break;
		}
	}
}

static void print_bytes(FILE *out, uint64_t v)
{
	char b[64];
	value_format_size(v, b, sizeof(b));
	fprintf(out, "%s", b);
}

/* The bytes of a write or append step, and its call size. */
static void print_wsize(FILE *out, const struct plan_group *g)
{
	if (iosize_set(&g->wmix)) {
		fprintf(out, "; ");
		if (g->write_size)
			print_bytes(out, g->write_size), fprintf(out, " in calls of ");
		fprintf(out, "a size drawn from %s",
		        g->write_bssplit ? g->write_bssplit : g->write_bsrange);
		return;
	}
	fprintf(out, "; ");
	print_bytes(out, g->write_size);
	fprintf(out, " in write() of up to ");
	print_bytes(out, g->write_blocksize);
}

void seqkeys_print_group(FILE *out, const struct plan_group *g)
{
	if (!g->n_seq)
		return;
	fprintf(out, "    sequence: %u steps, one transaction, in this order%s:\n", g->n_seq,
	        g->sequence_hold ? " (sequence_hold: its file kept open across loops)" : "");
	for (uint32_t i = 0; i < g->n_seq; i++) {
		const struct plan_step *st = &g->seq[i];
		const struct seq_step *s = step_of_op(st->op);
		fprintf(out, "      %2u %-9s", i + 1, s->word);
		if (st->times > 1)
			fprintf(out, " x %" PRIu32, st->times);
		if (st->op == OP_seq_open) /* the flags follow its steps up to its close */
			fprintf(out, "  openat(%s) of a random file, %s",
			        !st->writes               ? "O_RDONLY"
			        : g->open_sync == O_DSYNC ? "O_RDWR|O_DSYNC"
			        : g->open_sync == O_SYNC  ? "O_RDWR|O_SYNC"
			                                  : "O_RDWR",
			        st->writes ? "held alone (a step writes)"
			                   : "shared (its steps read)");
		else if (st->op == OP_seq_close && g->sequence_hold)
			fprintf(out,
			        "  no call: the file given back to the pool, kept open; close() "
			        "when the thread ends");
		else
			fprintf(out, "  %s", s->calls);
		if (st->op == OP_seq_open && g->sequence_hold)
			fprintf(out, "; once per thread: later loops take it back, no call");
		if (st->op == OP_seq_write || st->op == OP_seq_append)
			print_wsize(out, g);
		if (st->op == OP_seq_read) {
			fprintf(out, "; ");
			if (iosize_set(&g->rmix))
				fprintf(out, "a size drawn from %s",
				        g->read_bssplit ? g->read_bssplit : g->read_bsrange);
			else
				print_bytes(out, g->read_size),
				    fprintf(out, " in read() of up to "),
				    print_bytes(out, g->read_blocksize);
		}
		if (st->op == OP_seq_writeall)
			fprintf(out, "; write() of up to "), print_bytes(out, g->write_blocksize);
		if (st->op == OP_seq_readall)
			fprintf(out, "; read() of "), print_bytes(out, g->read_blocksize);
		if (g->dirsync && (op_table[st->op].flags & (OPF_DELETES | OPF_RENAMES)))
			fprintf(out, "; fsync() of its directory");
		if (g->dirsync && st->op == OP_seq_create)
			fprintf(out, "; fsync() of its directory after its close");
		fprintf(out, "\n");
	}
}
