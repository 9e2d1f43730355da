/* test_iodist.c - sizes and offsets inside a file (iodist.h, iokeys.h): the parsers of fio's
 * bssplit, bsrange and random_distribution syntax with their edge cases and bad values, every
 * sampler's frequencies against its exact probabilities (chi-square at a fixed seed, p = 0.001
 * critical values), and the random/sequential share of offdist_pick. */
#include <math.h>
#include <string.h>

#include "iodist.h"
#include "iokeys.h"
#include "test.h"

#define DRAWS 1000000

/* chi2 critical values at p = 0.001: 2, 15 and 49 degrees of freedom */
#define CHI2_2  13.82
#define CHI2_15 37.70
#define CHI2_49 85.35

/* CHECK_REFUSED - each {text, msg} of table refused by parse(text, obj, err) with msg in its
 * message. */
#define CHECK_REFUSED(table, parse, obj, err)                                                      \
	for (size_t i_ = 0; i_ < sizeof(table) / sizeof(table[0]); i_++) {                         \
		const char *e_ = parse(table[i_].text, obj, err);                                  \
		CHECK(e_ != NULL);                                                                 \
		if (e_)                                                                            \
			CHECK_CONTAINS(e_, table[i_].msg);                                         \
	}

static void test_parse_split(void)
{
	struct iosize s;
	char err[VALUE_ERR_LEN];
	CHECK(!iokeys_parse_split("4k/50:64k/30:1m/20", &s, err));
	CHECK_EQ_U(s.n, 3);
	CHECK_EQ_U(s.size[0], 4096);
	CHECK_EQ_U(s.size[2], 1048576);
	CHECK_NEAR(s.pct[1], 30, 1e-12);
	CHECK_EQ_U(s.cum[2], IODIST_ONE);
	CHECK_EQ_U(iosize_max(&s), 1048576);
	/* a blank percentage gets the rest; several blanks share it evenly */
	CHECK(!iokeys_parse_split("4k/50:64k/30:1m", &s, err));
	CHECK_NEAR(s.pct[2], 20, 1e-12);
	CHECK(!iokeys_parse_split("4k/40:8k/:16k", &s, err));
	CHECK_NEAR(s.pct[1], 30, 1e-12);
	CHECK_NEAR(s.pct[2], 30, 1e-12);
	CHECK(!iokeys_parse_split("512", &s, err));
	CHECK_NEAR(s.pct[0], 100, 1e-12);
	CHECK(!iokeys_parse_split("4k/33.3:8k/33.3:16k/33.4", &s, err));
	static const struct {
		const char *text, *msg;
	} bad[] = {
	    {"4k/60:64k/50", "add up to 110, over 100"},
	    {"4k/50:64k/30", "add up to 80, not 100"},
	    {"4k/50:64k/50:1m", "leave nothing for the sizes without one"},
	    {"0/100", "is zero"},
	    {"2g/100", "over 1 GiB"},
	    {"4k/0:64k/100", "out of range"},
	    {"4k/abc", "percentage 'abc'"},
	    {"4k/101", "out of range"},
	    {"4x/100", "size '4x'"},
	    {"", "not a size split"},
	    {"4k/50:", "without a size"},
	    {"/50:4k/50", "without a size"},
	    {"4k/50,8k/100", "set read_bssplit and write_bssplit apart"},
	};
	CHECK_REFUSED(bad, iokeys_parse_split, &s, err);
	char many[1024] = "";
	for (int i = 0; i <= IOSIZE_MAX; i++)
		strcat(many, i ? ":1k" : "1k");
	CHECK(iokeys_parse_split(many, &s, err) != NULL);
	CHECK_CONTAINS(err, "more than 64 sizes");
}

static void test_parse_range(void)
{
	struct iosize s;
	char err[VALUE_ERR_LEN];
	CHECK(!iokeys_parse_range("4k-64k", &s, err));
	CHECK(s.range && s.lo == 4096 && s.hi == 65536);
	CHECK_EQ_U(iosize_max(&s), 65536);
	CHECK(!iokeys_parse_range("4k-10k", &s, err)); /* the largest: 8k, a multiple of 4k */
	CHECK_EQ_U(iosize_max(&s), 8192);
	CHECK(!iokeys_parse_range("4k-4k", &s, err));
	static const struct {
		const char *text, *msg;
	} bad[] = {
	    {"64k-4k", "LO 64k is larger than HI 4k"},
	    {"4k", "not a size range"},
	    {"4k-8k-16k", "not a size range"},
	    {"0-4k", "is zero"},
	    {"4k-2g", "over 1 GiB"},
	    {"4k-", "size ''"},
	};
	CHECK_REFUSED(bad, iokeys_parse_range, &s, err);
}

static void test_parse_offdist(void)
{
	struct offdist d;
	char err[VALUE_ERR_LEN];
	CHECK(!iokeys_parse_offdist("random", &d, err) && d.kind == OFF_RANDOM);
	CHECK(!iokeys_parse_offdist("zipf:1.2", &d, err) && d.kind == OFF_ZIPF);
	CHECK_NEAR(d.pop.theta, 1.2, 1e-12);
	CHECK(!iokeys_parse_offdist("pareto:0.8", &d, err) && d.kind == OFF_PARETO);
	CHECK(!iokeys_parse_offdist("normal:10", &d, err) && d.kind == OFF_NORMAL);
	CHECK_NEAR(d.sigma, 0.1, 1e-12);
	CHECK(!iokeys_parse_offdist("zoned:60/10:30/20:8/30:2/40", &d, err));
	CHECK(d.kind == OFF_ZONED && d.n_zones == 4);
	CHECK_NEAR(d.zone_lo[1], 0.1, 1e-12);
	CHECK_NEAR(d.zone_hi[1], 0.3, 1e-12);
	CHECK_NEAR(d.zone_hi[3], 1.0, 0);
	CHECK(!iokeys_parse_offdist("zoned:0/50:100/50", &d, err)); /* a cold zone */
	static const struct {
		const char *text, *msg;
	} bad[] = {
	    {"zipf:0", "zipf THETA '0' is out of range"},
	    {"zipf:abc", "zipf THETA: 'abc' is not a number"},
	    {"pareto:1.2", "pareto H '1.2' is out of range"},
	    {"pareto:0.5", "out of range"},
	    {"normal:0", "normal SIGMA '0' is out of range"},
	    {"normal:101", "out of range"},
	    {"zoned:60/10:30/20", "give 90 % of the accesses to 30 % of the file"},
	    {"zoned:60:40", "is not ACCESS/SIZE"},
	    {"zoned:100/0", "percentage '0'"},
	    {"zoned:", "is not ACCESS/SIZE"},
	    {"gauss:3", "not a random_distribution"},
	    {"zipf", "not a random_distribution"},
	    {"random:1", "not a random_distribution"},
	};
	CHECK_REFUSED(bad, iokeys_parse_offdist, &d, err);
}

static void test_size_draws(void)
{
	struct iosize s;
	char err[VALUE_ERR_LEN];
	struct rng r;
	rng_seed(&r, 11, 0);
	CHECK(!iokeys_parse_split("4k/50:64k/30:1m", &s, err));
	uint64_t hits[3] = {0};
	for (int i = 0; i < DRAWS; i++) {
		uint64_t v = iosize_draw(&s, &r);
		hits[v == 4096 ? 0 : v == 65536 ? 1 : 2]++;
		CHECK(v == 4096 || v == 65536 || v == 1048576);
	}
	double p[16];
	for (int i = 0; i < 3; i++)
		p[i] = s.pct[i] / 100;
	CHECK(test_chi2(hits, p, 3, DRAWS) < CHI2_2);
	CHECK(!iokeys_parse_range("4k-64k", &s, err));
	uint64_t rh[16] = {0};
	for (int i = 0; i < DRAWS; i++) {
		uint64_t v = iosize_draw(&s, &r);
		CHECK(v % 4096 == 0 && v >= 4096 && v <= 65536);
		if (v % 4096 == 0 && v >= 4096 && v <= 65536)
			rh[v / 4096 - 1]++;
	}
	for (int i = 0; i < 16; i++)
		p[i] = 1 / 16.0;
	CHECK(test_chi2(rh, p, 16, DRAWS) < CHI2_15);
	/* no mix: the blocksize key; with one and no size key, one call */
	struct iosize none = {0};
	CHECK_EQ_U(iosize_call(&none, 777, &r), 777);
	CHECK_EQ_U(iosize_op_bytes(&none, 8192, 777, 1 << 20), 8192);
	CHECK_EQ_U(iosize_op_bytes(&s, 0, 4096, 1 << 20), 4096);
	CHECK_EQ_U(iosize_op_bytes(&s, 0, 65536, 1000), 1000);
	CHECK_EQ_U(iosize_op_bytes(&s, 12288, 4096, 1 << 20), 12288);
}

/* chi-square of n-slot draws of the distribution `text` against offdist_prob. */
static double chi_slots(const char *text, uint64_t n, uint64_t seed)
{
	struct offdist d;
	char err[VALUE_ERR_LEN];
	struct popcache c = {0};
	struct rng r;
	static uint64_t hits[256];
	static double p[256];
	if (iokeys_parse_offdist(text, &d, err)) {
		TEST_FAIL("%s: %s", text, err);
		return INFINITY;
	}
	memset(hits, 0, sizeof(hits));
	rng_seed(&r, seed, 0);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t k = offdist_slot(&d, &c, n, &r);
		CHECK(k < n);
		if (k < n)
			hits[k]++;
	}
	double sum = 0;
	for (uint64_t k = 0; k < n; k++) {
		sum += p[k] = offdist_prob(&d, n, k);
		if (p[k] == 0)
			CHECK_EQ_U(hits[k], 0);
	}
	CHECK_NEAR(sum, 1.0, 1e-9);
	return test_chi2(hits, p, n, DRAWS);
}

static void test_offset_draws(void)
{
	CHECK(chi_slots("zipf:1.2", 50, 1) < CHI2_49);
	CHECK(chi_slots("zipf:0.8", 50, 2) < CHI2_49);
	CHECK(chi_slots("pareto:0.8", 50, 3) < CHI2_49);
	CHECK(chi_slots("normal:10", 50, 4) < CHI2_49);
	CHECK(chi_slots("normal:60", 50, 5) < CHI2_49); /* truncated: wider than the file */
	CHECK(chi_slots("zoned:60/10:30/20:8/30:2/40", 50, 6) < CHI2_49);
	CHECK(chi_slots("zoned:0/50:100/50", 50, 7) < CHI2_49);
	CHECK(chi_slots("random", 50, 8) < CHI2_49);
	/* zones that round to no slot still get theirs: 3 slots, 4 zones */
	CHECK(chi_slots("zoned:25/10:25/10:25/10:25/70", 3, 9) < CHI2_2);
	/* a last zone so thin its start rounds to the file's end still gets the last slot */
	CHECK(chi_slots("zoned:50/100:50/0.00000000000000001", 3, 10) < CHI2_2);
	/* a wrong distribution is caught: zoned's first zone is 60 %, judged as uniform */
	struct offdist d;
	char err[VALUE_ERR_LEN];
	CHECK(!iokeys_parse_offdist("zoned:60/10:30/20:8/30:2/40", &d, err));
	double first = 0;
	for (uint64_t k = 0; k < 5; k++)
		first += offdist_prob(&d, 50, k);
	CHECK_NEAR(first, 0.6, 1e-12);
	/* pareto:0.8: 80 % of the offsets in the first 20 % of the file */
	CHECK(!iokeys_parse_offdist("pareto:0.8", &d, err));
	double hot = 0;
	for (uint64_t k = 0; k < 20; k++)
		hot += offdist_prob(&d, 100, k);
	CHECK_NEAR(hot, 0.8, 1e-9);
}

/* offdist_pick with d's share and alignment set as iokeys_group sets them. */
static uint64_t pick(struct offdist *d, uint32_t pct, bool align, struct offstate *st,
                     struct rng *r, uint64_t limit, uint64_t unit)
{
	d->pct_random = pct;
	d->align = align;
	return offdist_pick(d, st, r, limit, unit);
}

static void test_pick(void)
{
	struct offdist d = {.pct_random = 100};
	struct offstate st = {0};
	struct rng r, ref;
	/* the defaults draw exactly what the engine drew before (rng_below(limit + 1)) */
	rng_seed(&r, 3, 0);
	rng_seed(&ref, 3, 0);
	for (int i = 0; i < 1000; i++)
		CHECK_EQ_U(pick(&d, 100, false, &st, &r, 123456, 4096), rng_below(&ref, 123457));
	CHECK_EQ_U(pick(&d, 100, false, &st, &r, 0, 4096), 0);
	/* alignio rounds down to 4 KiB */
	for (int i = 0; i < 1000; i++)
		CHECK(pick(&d, 100, true, &st, &r, 1 << 20, 512) % 4096 == 0);
	/* percentage_random=30: 70 % of the offsets continue the previous extent */
	uint64_t cont = 0, prev_end = 0, n = 200000;
	st.seq = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = pick(&d, 30, false, &st, &r, (1 << 20) - 4096, 4096);
		cont += off == prev_end || (prev_end > (1 << 20) - 4096 && off == 0);
		prev_end = off + 4096;
		CHECK_EQ_U(st.seq, prev_end);
	}
	double share = (double)cont / (double)n;
	CHECK(fabs(share - 0.7) < 4 * sqrt(0.7 * 0.3 / (double)n) + 1e-3);
	/* 0: all sequential, wrapping at the end */
	st.seq = (1 << 20) - 4096;
	CHECK_EQ_U(pick(&d, 0, false, &st, &r, (1 << 20) - 4096, 4096), (1 << 20) - 4096);
	CHECK_EQ_U(pick(&d, 0, false, &st, &r, (1 << 20) - 4096, 4096), 0);
	CHECK_EQ_U(pick(&d, 0, false, &st, &r, (1 << 20) - 4096, 4096), 4096);
	/* a distribution places slots of the extent's size, all inside the file */
	char err[VALUE_ERR_LEN];
	CHECK(!iokeys_parse_offdist("zipf:1.2", &d, err));
	for (int i = 0; i < 10000; i++) {
		uint64_t off = pick(&d, 100, false, &st, &r, 100000 - 8192, 8192);
		CHECK(off % 8192 == 0 && off <= 100000 - 8192);
	}
}

int main(void)
{
	RUN(test_parse_split);
	RUN(test_parse_range);
	RUN(test_parse_offdist);
	RUN(test_size_draws);
	RUN(test_offset_draws);
	RUN(test_pick);
	return test_summary();
}
