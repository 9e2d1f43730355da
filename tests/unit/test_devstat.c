/* test_devstat.c - stat-file parsing, counter differences, mountinfo parsing and live probes. */
#include "devstat.h"
#include "test.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* A real line of a 6.x kernel (17 fields), and the same device on older kernels. */
#define STAT17                                                                                     \
	"   85598    25097  4006378    27108   305013    69693 12683032   111656        0    "     \
	"54856 "                                                                                   \
	"  184008   103489      113  8053224    26614    68405    18628\n"
#define STAT15 "5015 3 531536 4520 9608 17602 926086 14111 0 5796 23357 7 1 80 2\n"
#define STAT11 "1 2 3 4 5 6 7 8 9 10 11"

static void test_parse_17(void)
{
	struct devstat_sample s;

	CHECK_EQ_I(devstat_parse(STAT17, &s), 0);
	CHECK(s.valid);
	CHECK(s.has_discard);
	CHECK(s.has_flush);
	CHECK_EQ_U(s.read_ios, 85598);
	CHECK_EQ_U(s.read_merges, 25097);
	CHECK_EQ_U(s.read_sectors, 4006378);
	CHECK_EQ_U(s.read_ticks_ms, 27108);
	CHECK_EQ_U(s.write_ios, 305013);
	CHECK_EQ_U(s.write_merges, 69693);
	CHECK_EQ_U(s.write_sectors, 12683032);
	CHECK_EQ_U(s.write_ticks_ms, 111656);
	CHECK_EQ_U(s.in_flight, 0);
	CHECK_EQ_U(s.io_ticks_ms, 54856);
	CHECK_EQ_U(s.time_in_queue_ms, 184008);
	CHECK_EQ_U(s.discard_ios, 103489);
	CHECK_EQ_U(s.discard_merges, 113);
	CHECK_EQ_U(s.discard_sectors, 8053224);
	CHECK_EQ_U(s.discard_ticks_ms, 26614);
	CHECK_EQ_U(s.flush_ios, 68405);
	CHECK_EQ_U(s.flush_ticks_ms, 18628);
}

static void test_parse_15_11(void)
{
	struct devstat_sample s;

	CHECK_EQ_I(devstat_parse(STAT15, &s), 0);
	CHECK(s.valid);
	CHECK(s.has_discard);
	CHECK(!s.has_flush);
	CHECK_EQ_U(s.write_sectors, 926086);
	CHECK_EQ_U(s.discard_ios, 7);
	CHECK_EQ_U(s.discard_ticks_ms, 2);
	CHECK_EQ_U(s.flush_ios, 0);

	CHECK_EQ_I(devstat_parse(STAT11, &s), 0);
	CHECK(s.valid);
	CHECK(!s.has_discard);
	CHECK(!s.has_flush);
	CHECK_EQ_U(s.read_ios, 1);
	CHECK_EQ_U(s.time_in_queue_ms, 11);

	/* a future kernel's extra fields are ignored */
	CHECK_EQ_I(devstat_parse("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19", &s), 0);
	CHECK(s.has_flush);
	CHECK_EQ_U(s.flush_ticks_ms, 17);

	/* the largest counter */
	CHECK_EQ_I(devstat_parse("18446744073709551615 0 0 0 0 0 0 0 0 0 0", &s), 0);
	CHECK_EQ_U(s.read_ios, UINT64_MAX);
}

static void test_parse_bad(void)
{
	static const char *const bad[] = {
	    "",
	    "\n",
	    "1 2 3 4 5 6 7 8 9 10",                             /* too few */
	    "1 2 3 4 5 6 7 8 9 10 11 12 13",                    /* between the known layouts */
	    "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16",           /* flush without its time */
	    "1 2 3 4 5 6 7 8 9 10 x1",                          /* not a number */
	    "1 2 3 4 5 6 7 8 9 10 -11",                         /* negative */
	    "1 2 3 4 5 6 7 8 9 10 11x",                         /* junk after a number */
	    "18446744073709551616 0 0 0 0 0 0 0 0 0 0",         /* overflow */
	    "1 2 3 4 5 6 7 8 9 10 11\n1 2 3 4 5 6 7 8 9 10 11", /* two lines */
	};
	struct devstat_sample s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&s, 0xff, sizeof(s));
		s.valid = true;
		if (devstat_parse(bad[i], &s) != -EINVAL)
			TEST_FAIL("devstat_parse(\"%s\") accepted", bad[i]);
		else
			test_passed_checks++;
		CHECK(!s.valid);
	}
	CHECK_EQ_I(devstat_parse(NULL, &s), -EINVAL);
}

static void test_delta(void)
{
	struct devstat_sample a, b, d;

	CHECK_EQ_I(devstat_parse("10 1 80 5 20 2 160 7 3 30 40 0 0 0 0 100 9", &b), 0);
	CHECK_EQ_I(devstat_parse("15 1 120 6 220 12 1760 70 1 50 90 4 1 64 2 500 29", &a), 0);
	devstat_delta(&b, &a, &d);
	CHECK(d.valid);
	CHECK(d.has_flush);
	CHECK(d.has_discard);
	CHECK_EQ_U(d.read_ios, 5);
	CHECK_EQ_U(d.read_merges, 0);
	CHECK_EQ_U(d.read_sectors, 40);
	CHECK_EQ_U(d.write_ios, 200);
	CHECK_EQ_U(d.write_merges, 10);
	CHECK_EQ_U(d.write_sectors, 1600);
	CHECK_EQ_U(d.write_ticks_ms, 63);
	CHECK_EQ_U(d.in_flight, 1); /* the after value, not a difference */
	CHECK_EQ_U(d.io_ticks_ms, 20);
	CHECK_EQ_U(d.time_in_queue_ms, 50);
	CHECK_EQ_U(d.discard_sectors, 64);
	CHECK_EQ_U(d.flush_ios, 400);
	CHECK_EQ_U(d.flush_ticks_ms, 20);

	/* out may be one of the inputs */
	d = a;
	devstat_delta(&b, &d, &d);
	CHECK(d.valid);
	CHECK_EQ_U(d.flush_ios, 400);

	/* the same sample twice: all zero but valid */
	devstat_delta(&a, &a, &d);
	CHECK(d.valid);
	CHECK_EQ_U(d.write_ios, 0);
	CHECK_EQ_U(d.in_flight, 1);
}

static void test_delta_invalid(void)
{
	struct devstat_sample a, b, d;

	/* a counter went backwards (device re-created, or a 32-bit counter wrapped) */
	CHECK_EQ_I(devstat_parse("10 1 80 5 20 2 160 7 0 30 40 0 0 0 0 100 9", &b), 0);
	CHECK_EQ_I(devstat_parse("15 1 80 5 20 2 160 7 0 30 40 0 0 0 0 99 9", &a), 0);
	devstat_delta(&b, &a, &d);
	CHECK(!d.valid);
	CHECK(!d.has_flush);
	CHECK_EQ_U(d.read_ios, 0);

	/* in_flight may go down: it is a gauge */
	CHECK_EQ_I(devstat_parse("10 1 80 5 20 2 160 7 5 30 40", &b), 0);
	CHECK_EQ_I(devstat_parse("10 1 80 5 20 2 160 7 0 30 40", &a), 0);
	devstat_delta(&b, &a, &d);
	CHECK(d.valid);

	/* either side unread */
	memset(&b, 0, sizeof(b));
	devstat_delta(&b, &a, &d);
	CHECK(!d.valid);
	devstat_delta(&a, &b, &d);
	CHECK(!d.valid);

	/* flush counters only when both sides have them */
	CHECK_EQ_I(devstat_parse("10 1 80 5 20 2 160 7 0 30 40 0 0 0 0", &b), 0);
	CHECK_EQ_I(devstat_parse("11 1 80 5 20 2 160 7 0 30 40 0 0 0 0 7 7", &a), 0);
	devstat_delta(&b, &a, &d);
	CHECK(d.valid);
	CHECK(d.has_discard);
	CHECK(!d.has_flush);
	CHECK_EQ_U(d.flush_ios, 0);
	CHECK_EQ_U(d.read_ios, 1);
}

static void test_mountinfo_line(void)
{
	struct devstat_mount m;

	CHECK_EQ_I(devstat_parse_mountinfo_line("26 1 254:0 / / rw,relatime - ext4 /dev/vda "
	                                        "rw,discard,resuid=65534\n",
	                                        &m),
	           0);
	CHECK_EQ_U(m.major, 254);
	CHECK_EQ_U(m.minor, 0);
	CHECK_STR(m.root, "/");
	CHECK_STR(m.mount_point, "/");
	CHECK_STR(m.fstype, "ext4");
	CHECK_STR(m.source, "/dev/vda");
	/* per-mount options, then the super options not already there ("rw" once) */
	CHECK_STR(m.options, "rw,relatime,discard,resuid=65534");

	/* optional fields before the separator, escapes in the mount point, root and source */
	CHECK_EQ_I(devstat_parse_mountinfo_line(
	               "36 35 98:0 /mnt\\0401 /mnt/my\\040disk\\011x rw,noatime master:1 shared:7 "
	               "- ext3 /dev/my\\134root rw,errors=continue",
	               &m),
	           0);
	CHECK_EQ_U(m.major, 98);
	CHECK_STR(m.root, "/mnt 1");
	CHECK_STR(m.mount_point, "/mnt/my disk\tx");
	CHECK_STR(m.fstype, "ext3");
	CHECK_STR(m.source, "/dev/my\\root");
	CHECK_STR(m.options, "rw,noatime,errors=continue");

	/* ext4 without barriers: the option is a super option */
	CHECK_EQ_I(
	    devstat_parse_mountinfo_line(
	        "41 26 7:0 / /tmp/dsx rw,relatime shared:1 - ext4 /dev/loop0 rw,nobarrier", &m),
	    0);
	CHECK_EQ_U(m.major, 7);
	CHECK_STR(m.options, "rw,relatime,nobarrier");

	/* a backslash that is not an octal escape stays */
	CHECK_EQ_I(devstat_parse_mountinfo_line("1 0 0:5 / /a\\b rw - tmpfs none rw", &m), 0);
	CHECK_STR(m.mount_point, "/a\\b");
}

static void test_mountinfo_bad(void)
{
	static const char *const bad[] = {
	    "",
	    "26 1 254:0 / / rw,relatime ext4 /dev/vda rw", /* no separator */
	    "26 1 254:0 / / rw,relatime - ext4 /dev/vda",  /* no super options */
	    "26 1 254-0 / / rw - ext4 /dev/vda rw",        /* bad device */
	    "26 1 254:0x / / rw - ext4 /dev/vda rw",
	    "26 1 254:0 /",
	};
	struct devstat_mount m;
	char longline[700];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (devstat_parse_mountinfo_line(bad[i], &m) != -EINVAL)
			TEST_FAIL("mountinfo line \"%s\" accepted", bad[i]);
		else
			test_passed_checks++;

	/* a filesystem type longer than its field */
	snprintf(longline, sizeof(longline), "1 0 0:5 / /x rw - %0100d none rw", 0);
	CHECK_EQ_I(devstat_parse_mountinfo_line(longline, &m), -ENAMETOOLONG);
	CHECK_STR(m.fstype, "");
}

/* Very long options (overlayfs layer lists) and sources: the line stays, what fits is kept. */
static void test_mountinfo_long(void)
{
	static char line[4096], lower[1500];
	struct devstat_mount m;

	memset(lower, 'l', sizeof(lower) - 1);
	snprintf(line, sizeof(line),
	         "50 26 0:60 / /merged rw,relatime - overlay overlay rw,lowerdir=/%s,upperdir=/u\n",
	         lower);
	CHECK_EQ_I(devstat_parse_mountinfo_line(line, &m), 0);
	CHECK_STR(m.fstype, "overlay");
	CHECK_STR(m.mount_point, "/merged");
	CHECK_STR(m.options, "rw,relatime,upperdir=/u"); /* lowerdir=... does not fit */

	/* super options cut mid-way: the cut option is dropped, not kept half */
	snprintf(line, sizeof(line), "50 26 0:61 / /x rw - nfs4 srv:/%s rw,a=1,b=%s\n", lower,
	         lower);
	CHECK_EQ_I(devstat_parse_mountinfo_line(line, &m), 0);
	CHECK_STR(m.fstype, "nfs4");
	CHECK_EQ_U(strlen(m.source), sizeof(m.source) - 1);
	CHECK_STR(m.options, "rw,a=1");

	/* per-mount options cut mid-way (longer than options[]): the cut one dropped too */
	snprintf(line, sizeof(line), "50 26 0:62 / /y rw,noatime,x=%s - tmpfs none rw,size=1k\n",
	         lower);
	CHECK_EQ_I(devstat_parse_mountinfo_line(line, &m), 0);
	CHECK_STR(m.options, "rw,noatime,size=1k");
}

/* The mountinfo of a process with stacked, bind and nested mounts. */
static const char sample_mountinfo[] =
    "26 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
    "24 23 0:22 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=100k\n"
    "29 24 0:26 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=200k\n"
    "41 26 7:0 / /mnt/a rw,relatime shared:1 - ext4 /dev/loop0 rw\n"
    "42 26 7:0 /sub /srv/bind rw,noatime - ext4 /dev/loop0 rw\n"
    "43 41 7:1 / /mnt/a/inner rw - ext4 /dev/loop1 rw,nobarrier\n"
    "44 26 7:0 / /mnt/ab ro - ext4 /dev/loop0 ro\n"
    "45 26 8:1 / /mnt/with\\040space rw - xfs /dev/sda1 rw\n";

static int find(unsigned maj, unsigned min, const char *dir, struct devstat_mount *m)
{
	FILE *f = fmemopen((void *)sample_mountinfo, sizeof(sample_mountinfo) - 1, "r");
	int err;

	if (!f)
		return -errno;
	err = devstat_find_mount(f, maj, min, dir, m);
	fclose(f);
	return err;
}

static void test_find_mount(void)
{
	struct devstat_mount m;

	/* the device decides between the two mounts stacked on /dev/shm */
	CHECK_EQ_I(find(0, 26, "/dev/shm/x", &m), 0);
	CHECK_STR(m.options, "rw,relatime,size=200k");
	CHECK_EQ_I(find(0, 22, "/dev/shm", &m), 0);
	CHECK_STR(m.options, "rw,relatime,size=100k");

	/* one device mounted three times: the mount point containing the directory */
	CHECK_EQ_I(find(7, 0, "/srv/bind/d", &m), 0);
	CHECK_STR(m.mount_point, "/srv/bind");
	CHECK_STR(m.root, "/sub");
	CHECK_EQ_I(find(7, 0, "/mnt/a/dir", &m), 0);
	CHECK_STR(m.mount_point, "/mnt/a");
	/* "/mnt/a" is not a prefix of "/mnt/ab" as a path */
	CHECK_EQ_I(find(7, 0, "/mnt/ab/x", &m), 0);
	CHECK_STR(m.mount_point, "/mnt/ab");
	CHECK_STR(m.options, "ro");

	/* nested: the longest prefix of the right device */
	CHECK_EQ_I(find(7, 1, "/mnt/a/inner/deep", &m), 0);
	CHECK_STR(m.mount_point, "/mnt/a/inner");
	CHECK_STR(m.options, "rw,nobarrier");
	CHECK_EQ_I(find(254, 0, "/mnt/a/inner/deep", &m), 0);
	CHECK_STR(m.mount_point, "/");

	CHECK_EQ_I(find(8, 1, "/mnt/with space/x", &m), 0);
	CHECK_STR(m.mount_point, "/mnt/with space");
	CHECK_STR(m.fstype, "xfs");

	/* the device is mounted, but not above the directory: its details, no mount point */
	CHECK_EQ_I(find(7, 1, "/elsewhere", &m), 0);
	CHECK_STR(m.mount_point, "");
	CHECK_STR(m.fstype, "ext4");
	CHECK_STR(m.source, "/dev/loop1");

	CHECK_EQ_I(find(0, 99, "/", &m), -ENOENT);
}

static void test_probe_tmpfs(void)
{
	struct devstat_dev d;
	struct devstat_sample s;
	struct stat st;

	if (stat("/dev/shm", &st) != 0) {
		fprintf(stderr, "  (no /dev/shm here: skipped)\n");
		return;
	}
	CHECK_EQ_I(devstat_probe("/dev/shm", &d), 0);
	CHECK_STR(d.path, "/dev/shm");
	CHECK_EQ_U(d.major, major(st.st_dev));
	CHECK_EQ_U(d.minor, minor(st.st_dev));
	CHECK_STR(d.fstype, "tmpfs");
	CHECK_STR(d.mount_point, "/dev/shm");
	CHECK(!d.has_device);
	CHECK_STR(d.devname, "");
	CHECK_CONTAINS(d.why, "tmpfs");
	CHECK_EQ_I(devstat_read(&d, &s), -ENODEV);
	CHECK(!s.valid);
	fprintf(stderr, "  /dev/shm: %s on %s (%s): %s\n", d.fstype, d.mount_point, d.mount_options,
	        d.why);
}

static void test_probe_root(void)
{
	struct devstat_dev d;
	struct devstat_sample a, b, delta;

	CHECK_EQ_I(devstat_probe("/", &d), 0);
	CHECK_STR(d.mount_point, "/");
	CHECK(d.fstype[0] != '\0');
	CHECK(d.mount_options[0] != '\0');
	if (!d.has_device) {
		CHECK(d.why[0] != '\0');
		fprintf(stderr, "  /: %s, no device: %s\n", d.fstype, d.why);
		return;
	}
	CHECK(d.devname[0] != '\0');
	CHECK_CONTAINS(d.stat_path, "/sys/dev/block/");
	CHECK_EQ_I(devstat_read(&d, &b), 0);
	CHECK(b.valid);
	CHECK(b.has_flush); /* this project runs on Linux >= 5.5 */
	CHECK_EQ_I(devstat_read(&d, &a), 0);
	devstat_delta(&b, &a, &delta);
	CHECK(delta.valid);
	fprintf(stderr, "  /: %s on %s (%s, %u:%u) options %s; %" PRIu64 " flushes so far\n",
	        d.fstype, d.devname, d.mount_source, d.major, d.minor, d.mount_options,
	        a.flush_ios);
}

static void test_probe_errors(void)
{
	struct devstat_dev d;

	CHECK_EQ_I(devstat_probe("/nonexistent/fsmix-devstat", &d), -ENOENT);
	CHECK(!d.has_device);
	CHECK_EQ_I(devstat_probe("", &d), -EINVAL);
	/* /proc: no block device, a reason naming the filesystem */
	CHECK_EQ_I(devstat_probe("/proc/self", &d), 0);
	CHECK(!d.has_device);
	CHECK_STR(d.fstype, "proc");
	CHECK_CONTAINS(d.why, "proc");
}

int main(void)
{
	RUN(test_parse_17);
	RUN(test_parse_15_11);
	RUN(test_parse_bad);
	RUN(test_delta);
	RUN(test_delta_invalid);
	RUN(test_mountinfo_line);
	RUN(test_mountinfo_bad);
	RUN(test_mountinfo_long);
	RUN(test_find_mount);
	RUN(test_probe_tmpfs);
	RUN(test_probe_root);
	RUN(test_probe_errors);
	return test_summary();
}
