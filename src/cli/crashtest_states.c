/* crashtest_states.c - what fsmix crashtest explores: the record's flush points (read from
 * `fsmix-powercut inspect --states`), the moment the run's setup was durable (from the
 * durability log), and the numbered list of states (crashtest_states.h). */
#include "crashtest_states.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "durlog.h"

int ct_rec_read(const char *inspect_out, struct ct_rec *r)
{
	memset(r, 0, sizeof(*r));
	FILE *f = fopen(inspect_out, "r");
	if (!f)
		return -1;
	char line[512];
	size_t k, w, have = 0;
	uint64_t ns, bytes;
	double at;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line,
		           "state %zu at %lf s: %zu writes (%" SCNu64
		           " bytes) after it; ns %" SCNu64,
		           &k, &at, &w, &bytes, &ns) == 5) {
			if (k != have || k > r->nflush)
				break;
			r->pt[k] = (struct ct_point){ns, w};
			have++;
			continue;
		}
		sscanf(line, "writes %" SCNu64, &r->writes);
		sscanf(line, "write_bytes %" SCNu64, &r->write_bytes);
		sscanf(line, "record_bytes %" SCNu64, &r->record_bytes);
		sscanf(line, "start_ns %" SCNu64, &r->start_ns);
		sscanf(line, "end_ns %" SCNu64, &r->end_ns);
		if (sscanf(line, "flushes %zu", &r->nflush) == 1 && !r->pt) {
			r->pt = calloc(r->nflush + 1, sizeof(*r->pt));
			if (!r->pt)
				break;
		}
	}
	fclose(f);
	if (!r->pt || have != r->nflush + 1 || !r->end_ns) {
		free(r->pt);
		r->pt = NULL;
		return -1;
	}
	return 0;
}

uint64_t ct_setup_done(const char *log_path, char *err, size_t errlen)
{
	struct durlog_read rd;
	if (durlog_read_file(log_path, &rd, err, errlen))
		return 0;
	uint64_t done = 0;
	for (size_t i = 0; i < rd.n && rd.recs[i].worker == DURLOG_WORKER_MAIN; i++)
		if (rd.recs[i].kind == DL_SYNCFS)
			done = rd.recs[i].t_end;
	if (!done)
		snprintf(err, errlen, "%s holds no setup syncfs: the run made no promise",
		         log_path);
	durlog_read_free(&rd);
	return done;
}

/* The cut of flush point k: a sync acknowledged before the next flush arrived waited for a
 * flush at or before k, so everything it promised is in state k (docs/durability.md). */
static uint64_t cut_of(const struct ct_rec *r, size_t k)
{
	return k < r->nflush ? r->pt[k + 1].ns : r->end_ns + 1;
}

/* A disk that ignores flushes and writes its cache back CT_DESTAGE_NS after a write arrived
 * holds, at a cut at time t, what an honest disk held at the last flush before t - delay. */
static size_t lagged(const struct ct_rec *r, uint64_t cut)
{
	size_t j = 0;
	while (j < r->nflush && r->pt[j + 1].ns + CT_DESTAGE_NS < cut)
		j++;
	return j;
}

int ct_states_make(const struct ct_rec *r, const struct ct_opts *o, uint64_t seed,
                   uint64_t setup_ns, struct ct_list *l)
{
	memset(l, 0, sizeof(*l));
	size_t first = 0; /* --states N spreads over the run phase: after the setup was durable */
	while (o->states && first < r->nflush && cut_of(r, first) <= setup_ns)
		first++;
	size_t span = r->nflush - first + 1;
	size_t points = o->states && o->states < span ? o->states : span;
	l->states = calloc(points * (1 + (size_t)o->reorder), sizeof(*l->states));
	if (!l->states)
		return -1;
	for (size_t p = 0; p < points; p++) {
		/* evenly spread, the last among them */
		size_t k = points == span ? first + p
		           : points == 1
		               ? r->nflush
		               : first + (p * (span - 1) + (points - 1) / 2) / (points - 1);
		uint64_t cut = cut_of(r, k);
		size_t serve = o->fault == CT_FAULT_IGNORE_FLUSH ? lagged(r, cut) : k;
		for (unsigned i = 0; i <= o->reorder; i++) {
			struct ct_state *s = &l->states[l->n++];
			s->k = k;
			s->serve_k = serve;
			s->cut_ns = cut;
			s->verify = cut > setup_ns;
			s->random = i > 0;
			s->lose = o->fault == CT_FAULT_REORDER && k >= CT_REORDER_LATE;
			/* the subset's seed: one per (run seed, flush point, draw) */
			s->seed = (seed * 1000003u + k) * 1009u + i;
		}
	}
	return 0;
}

void ct_state_subset(const struct ct_state *s, char *buf, size_t len)
{
	if (s->random)
		snprintf(buf, len, "random:%" PRIu64, s->seed);
	else /* a disk that reorders across a flush persisted what came after it */
		snprintf(buf, len, s->lose ? "all" : "none");
}
