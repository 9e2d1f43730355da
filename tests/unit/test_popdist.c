/* test_popdist.c - file popularity: every sampler's rank frequencies against its exact
 * probabilities (chi-square at a fixed seed, 2 million draws, p = 0.001 critical values), the
 * rank permutation is a bijection, and the ranked pool pick follows the ranks through it. */
#include <math.h>
#include <stdlib.h>

#include "popdist.h"
#include "popularity.h"
#include "test.h"

#define NR    50
#define DRAWS 2000000
/* chi2 critical value, 49 degrees of freedom, p = 0.001 */
#define CHI2_49 85.35

static double chi_of(const uint64_t *hits, const struct popdist *d, uint64_t n, uint64_t draws)
{
	double p[NR];
	CHECK(n <= NR);
	for (uint64_t k = 0; k < n && k < NR; k++)
		p[k] = popdist_prob(d, n, k);
	return test_chi2(hits, p, n <= NR ? n : NR, (double)draws);
}

static double chi_rank(struct popdist d, uint64_t seed)
{
	uint64_t hits[NR] = {0};
	struct popcache c = {0};
	struct rng r;
	popdist_init(&d);
	rng_seed(&r, seed, 0);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t k = popdist_rank(&d, &c, NR, &r);
		CHECK(k < NR);
		if (k < NR)
			hits[k]++;
	}
	return chi_of(hits, &d, NR, DRAWS);
}

static void test_samplers(void)
{
	double chi;
	chi = chi_rank((struct popdist){.kind = POP_ZIPF, .theta = 1.2}, 1);
	CHECK(chi < CHI2_49);
	chi = chi_rank((struct popdist){.kind = POP_ZIPF, .theta = 0.8}, 2);
	CHECK(chi < CHI2_49);
	chi = chi_rank((struct popdist){.kind = POP_ZIPF, .theta = 1.0}, 3);
	CHECK(chi < CHI2_49);
	chi = chi_rank((struct popdist){.kind = POP_ZIPF, .theta = 2.5}, 4);
	CHECK(chi < CHI2_49);
	chi = chi_rank((struct popdist){.kind = POP_PARETO, .h = 0.8}, 5);
	CHECK(chi < CHI2_49);
	chi = chi_rank((struct popdist){.kind = POP_HOTSET, .hot_files = 0.2, .hot_ops = 0.8}, 6);
	CHECK(chi < CHI2_49);
	chi = chi_rank((struct popdist){.kind = POP_UNIFORM}, 7);
	CHECK(chi < CHI2_49);
	/* A wrong distribution is caught: zipf 1.2 draws judged as zipf 1.1. */
	uint64_t hits[NR] = {0};
	struct popdist z = {.kind = POP_ZIPF, .theta = 1.2}, y = {.kind = POP_ZIPF, .theta = 1.1};
	struct popcache c = {0};
	struct rng r;
	popdist_init(&z);
	popdist_init(&y);
	rng_seed(&r, 8, 0);
	for (int i = 0; i < DRAWS; i++)
		hits[popdist_rank(&z, &c, NR, &r)]++;
	CHECK(chi_of(hits, &y, NR, DRAWS) > 10 * CHI2_49);
}

/* The 80/20 rule of pareto:0.8 and the shares of hotset hold at a large n; n changing between
 * draws (a growing set) keeps every rank in range. */
static void test_shares_and_growth(void)
{
	struct popdist p = {.kind = POP_PARETO, .h = 0.8};
	struct popdist h = {.kind = POP_HOTSET, .hot_files = 0.1, .hot_ops = 0.9};
	struct popdist z = {.kind = POP_ZIPF, .theta = 1.2};
	struct popcache c = {0};
	struct rng r;
	popdist_init(&p);
	popdist_init(&h);
	popdist_init(&z);
	rng_seed(&r, 9, 0);
	uint64_t n = 1000000, hot_p = 0, hot_h = 0;
	for (int i = 0; i < DRAWS; i++) {
		hot_p += popdist_rank(&p, &c, n, &r) < n / 5;
		hot_h += popdist_rank(&h, &c, n, &r) < n / 10;
	}
	CHECK_NEAR((double)hot_p / DRAWS, 0.8, 0.003);
	CHECK_NEAR((double)hot_h / DRAWS, 0.9, 0.003);
	for (uint64_t m = 1; m < 3000; m++)
		for (int i = 0; i < 20; i++)
			CHECK(popdist_rank(&z, &c, m, &r) < m);
}

static void test_rankperm(void)
{
	static const uint64_t ns[] = {1, 2, 3, 5, 64, 1000, 4097};
	for (size_t t = 0; t < sizeof(ns) / sizeof(ns[0]); t++) {
		uint64_t n = ns[t];
		struct rankperm p;
		rankperm_init(&p, n, 42 + t);
		unsigned char *seen = calloc(n, 1);
		for (uint64_t k = 0; k < n; k++) {
			uint64_t v = rankperm_map(&p, k);
			CHECK(v < n);
			if (v < n) {
				CHECK(!seen[v]);
				seen[v] = 1;
			}
		}
		free(seen);
		CHECK_EQ_U(rankperm_map(&p, n + 3), n + 3); /* added ids rank after */
	}
	/* Another seed, another order; not the identity. */
	struct rankperm a, b;
	rankperm_init(&a, 1000, 1);
	rankperm_init(&b, 1000, 2);
	int same = 0, fixed = 0;
	for (uint64_t k = 0; k < 1000; k++) {
		same += rankperm_map(&a, k) == rankperm_map(&b, k);
		fixed += rankperm_map(&a, k) == k;
	}
	CHECK(same < 20);
	CHECK(fixed < 20);
}

/* Through a pool of NR files: picked ids, mapped back to ranks, follow zipf:1.2. A deleted
 * file's rank is drawn again: its share spreads over the others. */
static void test_pool_pick(void)
{
	struct pool pl;
	CHECK_EQ_I(pool_init(&pl, 1024), 0);
	for (uint32_t i = 0; i < NR; i++)
		CHECK_EQ_I(pool_add_initial(&pl, i, 0, 0), 0);
	struct rankperm perm;
	rankperm_init(&perm, NR, 77);
	uint64_t rank_of[NR];
	for (uint64_t k = 0; k < NR; k++)
		rank_of[rankperm_map(&perm, k)] = k;
	struct popdist d = {.kind = POP_ZIPF, .theta = 1.2};
	popdist_init(&d);
	struct popcache c = {0};
	struct rng r;
	rng_seed(&r, 11, 0);
	uint64_t hits[NR] = {0};
	for (int i = 0; i < DRAWS; i++) {
		uint32_t id;
		CHECK_EQ_I(pool_pick_ranked(&pl, &d, &perm, &c, &r, POOL_READ, &id), 0);
		hits[rank_of[id]]++;
		pool_release(&pl, id, POOL_READ);
	}
	CHECK(chi_of(hits, &d, NR, DRAWS) < CHI2_49);

	/* Remove the hottest file: none of its picks, the others' shares grow in proportion. */
	uint32_t hottest = (uint32_t)rankperm_map(&perm, 0), id;
	CHECK_EQ_I(pool_try_acquire(&pl, hottest, POOL_WRITE), 0);
	pool_remove(&pl, hottest);
	uint64_t again[NR] = {0};
	for (int i = 0; i < DRAWS / 4; i++) {
		CHECK_EQ_I(pool_pick_ranked(&pl, &d, &perm, &c, &r, POOL_READ, &id), 0);
		again[rank_of[id]]++;
		pool_release(&pl, id, POOL_READ);
	}
	CHECK_EQ_U(again[0], 0);
	double p0 = popdist_prob(&d, NR, 0), chi = 0;
	for (uint64_t k = 1; k < NR; k++) {
		double e = (double)(DRAWS / 4) * popdist_prob(&d, NR, k) / (1 - p0);
		chi += ((double)again[k] - e) * ((double)again[k] - e) / e;
	}
	CHECK(chi < CHI2_49); /* 48 degrees of freedom: 84.0; within the 49's bound too */
	pool_destroy(&pl);
}

/* chi2 critical value at p = 0.001 for df degrees of freedom (Wilson-Hilferty: within 1 %
 * above 30). */
static double chi2_crit(int df)
{
	double a = 2.0 / (9.0 * df), z = 3.0902;
	return df * pow(1.0 - a + z * sqrt(a), 3);
}

/* zipf over n > POPDIST_HEAD ranks: the head's alias table and the tail's rejection-inversion
 * together give the exact probabilities. Bins: every rank below 320 (the head, its edge and
 * the tail's start one by one), then bins growing by a quarter up to n. Returns chi2 / the
 * p = 0.001 critical value of the bins' degrees of freedom. */
static double zipf_fit(double theta_drawn, double theta_judged, uint64_t n, uint64_t seed)
{
	enum { MAXB = 400 };
	static uint64_t edge[MAXB + 1];
	static double e[MAXB];
	uint64_t hits[MAXB] = {0};
	int nb = 0;
	for (uint64_t lo = 0; lo < n && nb < MAXB; nb++) {
		edge[nb] = lo;
		lo = lo < 320 ? lo + 1 : lo + lo / 4;
	}
	edge[nb] = n;
	double sum = 0;
	for (uint64_t k = n; k >= 1; k--)
		sum += pow((double)k, -theta_judged);
	for (int b = 0; b < nb; b++) {
		e[b] = 0;
		for (uint64_t k = edge[b]; k < edge[b + 1]; k++)
			e[b] += pow((double)(k + 1), -theta_judged) / sum * DRAWS;
	}
	struct popdist d = {.kind = POP_ZIPF, .theta = theta_drawn};
	popdist_init(&d);
	struct popcache c = {0};
	struct rng r;
	rng_seed(&r, seed, 0);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t k = popdist_rank(&d, &c, n, &r);
		CHECK(k < n);
		int lo = 0, hi = nb; /* the bin of k: edge[lo] <= k < edge[lo + 1] */
		while (hi - lo > 1) {
			int mid = (lo + hi) / 2;
			if (edge[mid] <= k)
				lo = mid;
			else
				hi = mid;
		}
		hits[lo]++;
	}
	double chi = 0;
	for (int b = 0; b < nb; b++)
		chi += ((double)hits[b] - e[b]) * ((double)hits[b] - e[b]) / e[b];
	return chi / chi2_crit(nb - 1);
}

static void test_zipf_head(void)
{
	/* the head's edge, the benchmark's tree, a large one; a flat and a steep theta */
	CHECK(zipf_fit(1.2, 1.2, POPDIST_HEAD + 1, 21) < 1);
	CHECK(zipf_fit(1.2, 1.2, 2000, 22) < 1);
	CHECK(zipf_fit(1.2, 1.2, 100000, 23) < 1);
	CHECK(zipf_fit(0.8, 0.8, 2000, 24) < 1);
	CHECK(zipf_fit(1.0, 1.0, 5000, 25) < 1);
	CHECK(zipf_fit(2.5, 2.5, 3000, 26) < 1);
	/* a wrong distribution is caught: zipf 1.2 judged as zipf 1.17 */
	CHECK(zipf_fit(1.2, 1.17, 2000, 27) > 2);
	/* n growing across the head's edge: the per-thread cache follows n */
	struct popdist d = {.kind = POP_ZIPF, .theta = 1.2};
	popdist_init(&d);
	struct popcache c = {0};
	struct rng r;
	rng_seed(&r, 28, 0);
	for (uint64_t m = POPDIST_HEAD - 3; m < POPDIST_HEAD + 600; m++)
		for (int i = 0; i < 50; i++)
			CHECK(popdist_rank(&d, &c, m, &r) < m);
}

int main(void)
{
	RUN(test_samplers);
	RUN(test_shares_and_growth);
	RUN(test_rankperm);
	RUN(test_pool_pick);
	RUN(test_zipf_head);
	return test_summary();
}
