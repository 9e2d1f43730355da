/* dist.c - the processes of a distributed run (dist.h). The MPI half is compiled where CMake
 * found MPI (FSMIX_HAVE_MPI); the other half keeps every function for a single process. */
#include "dist.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "stopsig.h"

#ifdef FSMIX_HAVE_MPI
#include <mpi.h>
#endif

bool dist_launched(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
	                                   "PMI_SIZE"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

void dist_single(struct dist *d)
{
	memset(d, 0, sizeof(*d));
	d->size = 1;
	d->n_hosts = 1;
	if (gethostname(d->host, sizeof(d->host) - 1))
		snprintf(d->host, sizeof(d->host), "localhost");
}

/* A job of one: rank 0 "gathers" its own buffer. */
static int gather_self(const void *buf, size_t len, char **all, size_t **lens)
{
	*all = malloc(len ? len : 1);
	*lens = malloc(sizeof(size_t));
	if (!*all || !*lens) {
		free(*all);
		free(*lens);
		*all = NULL;
		*lens = NULL;
		return -ENOMEM;
	}
	memcpy(*all, buf, len);
	**lens = len;
	return 0;
}

#ifdef FSMIX_HAVE_MPI

/* "rank R on HOST: msg" for the lowest failing rank. */
static void agreed_message(char *err, size_t errlen, int rank, const char *host, const char *msg,
                           int n_failed)
{
	if (n_failed > 1)
		snprintf(err, errlen, "rank %d on %s: %s (and %d other rank%s)", rank, host, msg,
		         n_failed - 1, n_failed == 2 ? "" : "s");
	else
		snprintf(err, errlen, "rank %d on %s: %s", rank, host, msg);
}

/* Waits for a non-blocking collective, sleeping 1 ms between tests. A blocking one would spin
 * on the CPU (OpenMPI polls), which a rank that is done first would take from the ranks still
 * running on the same host (a count-limited run) or still building their trees. */
static void wait_quietly(MPI_Request *req)
{
	int done = 0;
	const struct timespec ms = {0, 1000000};
	for (;;) {
		MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		nanosleep(&ms, NULL);
	}
}

/* What a failing rank tells every other rank (dist_agree). */
struct verdict {
	int kind; /* enum failure */
	char host[DIST_HOST_MAX];
	char msg[MSG_MAX];
};

/* Distinct hosts, numbered in the order of their lowest rank: every rank sends its name to every
 * rank. */
static int learn_hosts(struct dist *d)
{
	char *names = malloc((size_t)d->size * DIST_HOST_MAX);
	if (!names)
		return -ENOMEM;
	MPI_Allgather(d->host, DIST_HOST_MAX, MPI_CHAR, names, DIST_HOST_MAX, MPI_CHAR,
	              MPI_COMM_WORLD);
	d->n_hosts = 0;
	d->host_first_rank = -1;
	for (int r = 0; r < d->size; r++) {
		const char *name = names + (size_t)r * DIST_HOST_MAX;
		bool new_host = true;
		for (int q = 0; q < d->n_hosts && new_host; q++) /* the distinct ones so far */
			new_host = strcmp(names + (size_t)q * DIST_HOST_MAX, name) != 0;
		if (new_host && d->host_first_rank < 0 && !strcmp(name, d->host)) {
			d->host_first_rank = r;
			d->host_index = d->n_hosts;
		}
		if (new_host) /* packed to the front, in order: names[n_hosts] <= names[r] */
			memmove(names + (size_t)d->n_hosts * DIST_HOST_MAX, name, DIST_HOST_MAX);
		d->n_hosts += new_host;
	}
	free(d->hosts);
	d->hosts = (char(*)[DIST_HOST_MAX])names;
	return 0;
}

enum failure dist_init(struct dist *d, int *argc, char ***argv, char *err, size_t errlen)
{
	dist_single(d);
	/* Before MPI makes its threads: they inherit the mask, so a stop signal is read by
	 * fsmix's watcher (run.c) and never kills the process from one of MPI's threads. */
	sigset_t set;
	sigemptyset(&set);
	stopsig_fill(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	int provided = 0;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI_Init failed");
		return FAIL_UNSUPPORTED;
	}
	d->on = true;
	MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &d->size);
	if (provided < MPI_THREAD_FUNNELED) {
		snprintf(err, errlen, "the MPI library gives no thread support (level %d)",
		         provided);
		return FAIL_UNSUPPORTED;
	}
	if (learn_hosts(d)) {
		snprintf(err, errlen, "out of memory for the job's %d host names", d->size);
		return FAIL_IO;
	}
	return FAIL_NONE;
}

void dist_finalize(struct dist *d)
{
	if (d->on)
		MPI_Finalize();
	d->on = false;
	free(d->hosts);
	d->hosts = NULL;
}

_Noreturn void dist_abort(const struct dist *d, int status)
{
	fflush(NULL);
	if (d->on)
		MPI_Abort(MPI_COMM_WORLD, status);
	exit(status);
}

enum failure dist_agree(const struct dist *d, enum failure mine, const char *msg, char *err,
                        size_t errlen)
{
	if (!d->on) {
		if (mine != FAIL_NONE && msg != err)
			snprintf(err, errlen, "%s", msg ? msg : "");
		return mine;
	}
	int in[2] = {mine != FAIL_NONE ? d->rank : d->size, mine != FAIL_NONE}, first, n_failed;
	MPI_Request req;
	MPI_Iallreduce(&in[0], &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &req);
	wait_quietly(&req);
	MPI_Iallreduce(&in[1], &n_failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
	wait_quietly(&req);
	if (first >= d->size)
		return FAIL_NONE;
	struct verdict *v = calloc(1, sizeof(*v));
	if (!v) /* cannot take part in the broadcast: end the job rather than hang it */
		dist_abort(d, 1);
	if (d->rank == first) {
		v->kind = (int)mine;
		snprintf(v->host, sizeof(v->host), "%s", d->host);
		snprintf(v->msg, sizeof(v->msg), "%s", msg && *msg ? msg : "failed");
	}
	MPI_Bcast(v, (int)sizeof(*v), MPI_BYTE, first, MPI_COMM_WORLD);
	enum failure kind = (enum failure)v->kind;
	char text[MSG_MAX];
	snprintf(text, sizeof(text), "%s", v->msg);
	agreed_message(err, errlen, first, v->host, text, n_failed);
	free(v);
	return kind;
}

int dist_gather(const struct dist *d, const void *buf, size_t len, char **all, size_t **lens)
{
	if (!d->on)
		return gather_self(buf, len, all, lens);
	*all = NULL;
	*lens = NULL;
	int n = len > INT_MAX ? -1 : (int)len;
	int *counts = NULL, *displs = NULL, rc = 0;
	if (d->rank == 0) {
		counts = calloc((size_t)d->size, sizeof(int));
		displs = calloc((size_t)d->size, sizeof(int));
		*lens = calloc((size_t)d->size, sizeof(size_t));
	}
	bool room = d->rank != 0 || (counts && displs && *lens);
	MPI_Gather(&n, 1, MPI_INT, room ? counts : NULL, 1, MPI_INT, 0, MPI_COMM_WORLD);
	/* Every rank learns whether rank 0 can take them all (else nobody sends). */
	long long total = 0;
	if (d->rank == 0 && room)
		for (int r = 0; r < d->size; r++) {
			if (counts[r] < 0 || total + counts[r] > INT_MAX) {
				rc = -E2BIG;
				break;
			}
			displs[r] = (int)total;
			total += counts[r];
			(*lens)[r] = (size_t)counts[r];
		}
	if (d->rank == 0 && !rc && (!room || !(*all = malloc(total ? (size_t)total : 1))))
		rc = -ENOMEM;
	int go = rc == 0;
	MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (go)
		MPI_Gatherv(buf, n, MPI_BYTE, *all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
	free(counts);
	free(displs);
	if (d->rank == 0 && rc) {
		free(*all);
		free(*lens);
		*all = NULL;
		*lens = NULL;
	}
	return d->rank == 0 ? rc : 0;
}

int dist_differ(const struct dist *d, const char *text, size_t len, bool *differs, char **all,
                size_t **lens)
{
	*differs = false;
	*all = NULL;
	*lens = NULL;
	if (!d->on)
		return 0;
	uint64_t mine = hash_fnv1a(HASH_FNV1A_SEED, text, len), first = mine;
	dist_bcast(d, &first, sizeof(first));
	*differs = mine != first;
	return dist_gather(d, text, *differs ? len : 0, all, lens);
}

double dist_min_double(const struct dist *d, double v)
{
	double out = v;
	if (d->on)
		MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
	return out;
}

void dist_bcast(const struct dist *d, void *buf, size_t len)
{
	if (d->on)
		MPI_Bcast(buf, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
}

#define TAG_WATCH 7001

/* The kinds of message on the watch's channel (its int). */
enum { MSG_STOP = 1, MSG_END = 2 };

struct watch {
	MPI_Request recv;  /* the listening receive, always posted until dist_watch_end */
	int in;            /* its buffer */
	int got;           /* messages it has taken so far */
	bool heard_stop;   /* another rank stopped early */
	bool heard_end;    /* another rank's run phase ended */
	MPI_Request *sent; /* [size]: the message this rank sent to each (at most one) */
	int msg;           /* what it sent */
};

void dist_watch_start(struct dist *d)
{
	if (!d->on || d->watch)
		return;
	struct watch *w = calloc(1, sizeof(*w));
	if (w)
		w->sent = calloc((size_t)d->size, sizeof(*w->sent));
	if (!w || !w->sent) /* no watch: every rank still reaches dist_watch_end's collective */
		dist_abort(d, 1);
	for (int r = 0; r < d->size; r++)
		w->sent[r] = MPI_REQUEST_NULL;
	MPI_Irecv(&w->in, 1, MPI_INT, MPI_ANY_SOURCE, TAG_WATCH, MPI_COMM_WORLD, &w->recv);
	d->watch = w;
}

/* Takes every message that has come, posting the listening receive again after each. */
static void watch_take(struct watch *w)
{
	for (;;) {
		int done = 0;
		MPI_Test(&w->recv, &done, MPI_STATUS_IGNORE);
		if (!done)
			return;
		w->got++;
		w->heard_stop |= w->in == MSG_STOP;
		w->heard_end |= w->in == MSG_END;
		MPI_Irecv(&w->in, 1, MPI_INT, MPI_ANY_SOURCE, TAG_WATCH, MPI_COMM_WORLD, &w->recv);
	}
}

bool dist_watch_poll(struct dist *d, bool *ended)
{
	dist_watch_start(d);
	struct watch *w = d->watch;
	if (ended)
		*ended = false;
	if (!w)
		return false;
	watch_take(w);
	if (ended)
		*ended = w->heard_end;
	return w->heard_stop;
}

void dist_watch_end(struct dist *d, bool tell)
{
	(void)dist_watch_poll(d, NULL);
	struct watch *w = d->watch;
	if (!w)
		return;
	int *out = calloc((size_t)d->size, sizeof(int)), *in = calloc((size_t)d->size, sizeof(int));
	if (!out || !in)
		dist_abort(d, 1);
	/* A stop when this rank stopped early on its own; else an end, unless another rank's
	 * was heard (that one's end was the first) or the job is stopping anyway. */
	w->msg = tell ? MSG_STOP : MSG_END;
	if (!w->heard_stop && (tell || !w->heard_end))
		for (int r = 0; r < d->size; r++)
			if (r != d->rank) {
				MPI_Isend(&w->msg, 1, MPI_INT, r, TAG_WATCH, MPI_COMM_WORLD,
				          &w->sent[r]);
				out[r] = 1;
			}
	MPI_Request req;
	MPI_Ialltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD, &req);
	wait_quietly(&req); /* a rank done first must not take the CPU of those still running */
	int n_in = 0;
	for (int r = 0; r < d->size; r++)
		n_in += in[r];
	watch_take(w);
	if (w->got == n_in) { /* every message sent here was taken: take back the receive */
		MPI_Cancel(&w->recv);
		MPI_Wait(&w->recv, MPI_STATUS_IGNORE);
	} else { /* the listening receive takes one of the rest, plain receives the others */
		MPI_Wait(&w->recv, MPI_STATUS_IGNORE);
		for (int k = w->got + 1; k < n_in; k++)
			MPI_Recv(&w->in, 1, MPI_INT, MPI_ANY_SOURCE, TAG_WATCH, MPI_COMM_WORLD,
			         MPI_STATUS_IGNORE);
	}
	MPI_Waitall(d->size, w->sent, MPI_STATUSES_IGNORE);
	free(out);
	free(in);
	free(w->sent);
	free(w);
	d->watch = NULL;
}

#else /* no MPI: a single process */

void dist_watch_start(struct dist *d)
{
	(void)d;
}

bool dist_watch_poll(struct dist *d, bool *ended)
{
	(void)d;
	if (ended)
		*ended = false;
	return false;
}

void dist_watch_end(struct dist *d, bool tell)
{
	(void)d;
	(void)tell;
}

enum failure dist_init(struct dist *d, int *argc, char ***argv, char *err, size_t errlen)
{
	(void)argc;
	(void)argv;
	dist_single(d);
	snprintf(err, errlen,
	         "this fsmix was built without MPI support (cmake -DFSMIX_MPI=ON with an MPI "
	         "installed, e.g. libopenmpi-dev; docs/distributed.md)");
	return FAIL_UNSUPPORTED;
}

void dist_finalize(struct dist *d)
{
	d->on = false;
}

_Noreturn void dist_abort(const struct dist *d, int status)
{
	(void)d;
	fflush(NULL);
	exit(status);
}

enum failure dist_agree(const struct dist *d, enum failure mine, const char *msg, char *err,
                        size_t errlen)
{
	(void)d;
	if (mine != FAIL_NONE && msg != err)
		snprintf(err, errlen, "%s", msg ? msg : "");
	return mine;
}

int dist_gather(const struct dist *d, const void *buf, size_t len, char **all, size_t **lens)
{
	(void)d;
	return gather_self(buf, len, all, lens);
}

int dist_differ(const struct dist *d, const char *text, size_t len, bool *differs, char **all,
                size_t **lens)
{
	(void)d;
	(void)text;
	(void)len;
	*differs = false;
	*all = NULL;
	*lens = NULL;
	return 0;
}

double dist_min_double(const struct dist *d, double v)
{
	(void)d;
	return v;
}

void dist_bcast(const struct dist *d, void *buf, size_t len)
{
	(void)d;
	(void)buf;
	(void)len;
}

#endif
