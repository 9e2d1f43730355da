/* replay_main.c - runs inputs through LLVMFuzzerTestOneInput without libFuzzer, so the corpus
 * is a regression suite under any compiler and sanitizer (ctest fuzz_replay).
 *
 *   fuzz_replay PATH...   each PATH is a file or a directory whose regular files are run
 *                         (sorted by name, not recursive)
 * Exits 0 when every input ran, 1 if a path could not be read, 2 on bad usage. A crash is
 * reported by the sanitizer, or by the shell as a signal.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path, size_t *count)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		uint8_t *nb = realloc(buf, cap * 2);
		if (!nb) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = nb;
		cap *= 2;
	}
	int err = ferror(f);
	fclose(f);
	if (!buf || err) {
		fprintf(stderr, "fuzz_replay: %s: %s\n", path,
		        buf ? "read error" : "out of memory");
		free(buf);
		return -1;
	}
	/* An exact-size copy, so ASan catches a read one byte past the input. */
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, n);
	free(buf);
	(void)LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	(*count)++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, size_t *count)
{
	DIR *dp = opendir(dir);
	if (!dp) {
		fprintf(stderr, "fuzz_replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		char **nv = realloc(names, (n + 1) * sizeof(*names));
		if (!nv || !(nv[n] = strdup(de->d_name))) {
			names = nv ? nv : names;
			rc = -1;
			break;
		}
		names = nv;
		n++;
	}
	closedir(dp);
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(dir) + strlen(names[i]) + 2;
		char *path = malloc(len);
		struct stat st;
		if (!path) {
			rc = -1;
		} else {
			snprintf(path, len, "%s/%s", dir, names[i]);
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && run_file(path, count))
				rc = -1;
		}
		free(path);
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int rc = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "fuzz_replay: %s: %s\n", argv[i], strerror(errno));
			rc = 1;
		} else if (S_ISDIR(st.st_mode) ? run_dir(argv[i], &count)
		                               : run_file(argv[i], &count)) {
			rc = 1;
		}
	}
	printf("fuzz_replay: %zu inputs run\n", count);
	if (count == 0) {
		fprintf(stderr, "fuzz_replay: no input found\n");
		rc = 1;
	}
	return rc;
}
