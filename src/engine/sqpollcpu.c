/* sqpollcpu.c - the CPU time of io_uring's submission polling threads (sqpollcpu.h). Each
 * ring made with IORING_SETUP_SQPOLL has a kernel thread that belongs to this process (a task
 * of its thread group, named "iou-sqp-PID"), so its CPU is in getrusage(RUSAGE_SELF) with
 * every other thread's; this separates it: the utime and stime fields of
 * /proc/self/task/TID/stat of each such thread (proc(5)). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sqpollcpu.h"

/* The CPU ticks of one task of this process if it is a polling thread, else 0. */
static unsigned long long sqp_ticks(const char *tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/self/task/%s/stat", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* ended since readdir */
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "TID (COMM) STATE ...": COMM may hold spaces and parentheses, so up to the last ')' */
	const char *l = strchr(buf, '('), *r = strrchr(buf, ')');
	if (!l || !r || r < l || strncmp(l + 1, "iou-sqp-", 8) != 0)
		return 0;
	unsigned long long ut, st; /* fields 14 and 15, after state, 5 ints and 5 counters */
	if (sscanf(r + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return 0;
	return ut + st;
}

double sqpoll_cpu_s(const struct plan *pl)
{
	bool any = false;
	for (size_t i = 0; i < pl->n_groups; i++)
		any |= pl->groups[i].sqpoll;
	if (!any)
		return -1;
	DIR *d = opendir("/proc/self/task");
	long hz = sysconf(_SC_CLK_TCK);
	if (!d || hz <= 0) {
		if (d)
			closedir(d);
		return 0;
	}
	unsigned long long ticks = 0;
	for (struct dirent *de; (de = readdir(d));)
		if (de->d_name[0] != '.')
			ticks += sqp_ticks(de->d_name);
	closedir(d);
	return (double)ticks / (double)hz;
}
