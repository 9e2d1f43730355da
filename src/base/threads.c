/* threads.c - the start gate and the thread-limit description (see threads.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "threads.h"

int gate_init(struct start_gate *g)
{
	memset(g, 0, sizeof(*g));
	if (pthread_mutex_init(&g->lock, NULL))
		return -1;
	if (pthread_cond_init(&g->arrived, NULL)) {
		pthread_mutex_destroy(&g->lock);
		return -1;
	}
	if (pthread_cond_init(&g->opened, NULL)) {
		pthread_cond_destroy(&g->arrived);
		pthread_mutex_destroy(&g->lock);
		return -1;
	}
	return 0;
}

void gate_destroy(struct start_gate *g)
{
	pthread_cond_destroy(&g->opened);
	pthread_cond_destroy(&g->arrived);
	pthread_mutex_destroy(&g->lock);
}

void gate_reset(struct start_gate *g, size_t expected)
{
	pthread_mutex_lock(&g->lock);
	g->expected = expected;
	g->waiting = 0;
	g->open = false;
	pthread_mutex_unlock(&g->lock);
}

void gate_wait(struct start_gate *g)
{
	pthread_mutex_lock(&g->lock);
	if (++g->waiting == g->expected)
		pthread_cond_signal(&g->arrived);
	while (!g->open)
		pthread_cond_wait(&g->opened, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

void gate_wait_arrived(struct start_gate *g)
{
	pthread_mutex_lock(&g->lock);
	while (g->waiting < g->expected)
		pthread_cond_wait(&g->arrived, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

void gate_open_all(struct start_gate *g)
{
	pthread_mutex_lock(&g->lock);
	while (g->waiting < g->expected)
		pthread_cond_wait(&g->arrived, &g->lock);
	g->open = true;
	pthread_cond_broadcast(&g->opened);
	pthread_mutex_unlock(&g->lock);
}

void gate_open_now(struct start_gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->open = true;
	pthread_cond_broadcast(&g->opened);
	pthread_mutex_unlock(&g->lock);
}

/* The first line of a small file, without its newline; false if unreadable. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* The pids.max of this process's cgroup or its nearest ancestor that sets one (a limit above
 * applies too), as "VALUE (PATH)"; false when there is none or no pids controller. */
static bool cgroup_pids_max(char *out, size_t len)
{
	char line[4096], rel[4096] = "";
	const char *roots[2] = {NULL, NULL};
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		const char *ctrls = c1 + 1;
		/* v1: "N:pids:/path"; v2: "0::/path" (mounted on /sys/fs/cgroup, or on
		 * /sys/fs/cgroup/unified beside v1 controllers). */
		bool v1 = false;
		char *save = NULL;
		for (char *tok = strtok_r(c1 + 1, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			v1 |= !strcmp(tok, "pids");
		if (v1) {
			snprintf(rel, sizeof(rel), "%s", c2 + 1);
			roots[0] = "/sys/fs/cgroup/pids";
			roots[1] = NULL;
			break;
		}
		if (!ctrls[0] && !roots[0]) {
			snprintf(rel, sizeof(rel), "%s", c2 + 1);
			roots[0] = "/sys/fs/cgroup";
			roots[1] = "/sys/fs/cgroup/unified";
		}
	}
	fclose(f);
	for (int r = 0; r < 2 && roots[r]; r++) {
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s", rel);
		for (;;) {
			char path[8192], val[64];
			snprintf(path, sizeof(path), "%s%s/pids.max", roots[r],
			         strcmp(dir, "/") ? dir : "");
			if (read_line(path, val, sizeof(val)) && strcmp(val, "max")) {
				snprintf(out, len, "%s (%s)", val, path);
				return true;
			}
			char *slash = strrchr(dir, '/');
			if (!slash || slash == dir) {
				if (!strcmp(dir, "/") || !dir[0])
					break;
				strcpy(dir, "/");
			} else {
				*slash = '\0';
			}
		}
	}
	return false;
}

void thread_limit_describe(char *buf, size_t len)
{
	char v[8300];
	struct rlimit rl;
	if (cgroup_pids_max(v, sizeof(v)))
		snprintf(buf, len, "the cgroup's pids.max (processes and threads) is %s", v);
	else if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(buf, len,
		         "limits: RLIMIT_NPROC (ulimit -u) %llu, or kernel.threads-max, or memory "
		         "for thread stacks",
		         (unsigned long long)rl.rlim_cur);
	else
		snprintf(
		    buf, len,
		    "limits: a cgroup's pids.max, ulimit -u, kernel.threads-max, or memory for "
		    "thread stacks");
}
