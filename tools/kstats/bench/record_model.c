// SPDX-License-Identifier: GPL-2.0
/*
 * Native model of the kstats record path, for the machines where the VM
 * can only emulate: the same slot and offset computation as lib/kstats.c,
 * each thread pinned to its own CPU and adding to its own histogram (the
 * per-CPU counters), against the floor of two adds on a slot picked from
 * the same values, a shared log2 histogram updated with atomic adds (the
 * BPF-map style) and one under a mutex. Prints, per case, the median ns
 * per operation of 7 runs, one thread and then one per CPU.
 *
 * What it does not model: this_cpu_*() and preempt_disable() cost a few
 * instructions more in the kernel than plain adds to thread-local memory.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define OPS	(4 << 20)
#define RUNS	7
#define SUM_BITS 16

struct slot {
	uint64_t samples, sum;
};

struct hist {
	unsigned int bits;
	struct slot *slots;
};

/* The slot, and the offset kept in its sum: as kstats_record(). */
static inline void record(struct hist *h, uint64_t val)
{
	unsigned int b = h->bits;
	uint64_t v = val >> b;
	unsigned int bucket = v ? 64 - __builtin_clzll(v) : 0;
	unsigned int shift = bucket ? bucket - 1 : 0;
	unsigned int slot = (bucket << b) | ((val >> shift) & ((1u << b) - 1));
	uint64_t off = (val & ((1ull << shift) - 1)) >>
		       (shift > SUM_BITS ? shift - SUM_BITS : 0);

	h->slots[slot].samples++;
	h->slots[slot].sum += off;
}

enum kase { EMPTY, LIMIT, REC0, REC3, REC8, REC3_HOT, ATOMIC, MUTEX, NR_CASES };
static const char * const names[] = {
	"empty", "limit", "kstats_record_bits0_spread", "kstats_record_bits3_spread",
	"kstats_record_bits8_spread", "kstats_record_bits3_hot", "shared_atomic_log2",
	"mutex_log2",
};

static struct slot shared[65];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t barrier;
static uint64_t sink;	/* consumes the results; printed at the end */

struct worker {
	pthread_t t;
	int cpu;
	enum kase c;
	double ns;
};

static inline uint64_t next(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> (*x >> 58);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct hist h = { 0 };
	struct slot *local = calloc(512, sizeof(*local));
	uint64_t x = w->cpu + 1, acc = 0;
	unsigned int bits = w->c == REC0 ? 0 : w->c == REC8 ? 8 : 3;
	cpu_set_t set;
	double t0;
	long i;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	h.bits = bits;
	h.slots = calloc((65 - bits) << bits, sizeof(struct slot));
	if (!h.slots || !local)
		exit(1);
	pthread_barrier_wait(&barrier);
	t0 = now();
	for (i = 0; i < OPS; i++) {
		uint64_t v = next(&x);
		unsigned int l = 63 - __builtin_clzll(v | 1);

		switch (w->c) {
		case EMPTY:
			acc += v;
			break;
		case LIMIT:
			local[v & 511].samples++;
			local[v & 511].sum += v;
			break;
		case REC0:
		case REC3:
		case REC8:
			record(&h, v);
			break;
		case REC3_HOT:
			record(&h, 1000 + (v & 0));
			break;
		case ATOMIC:
			__atomic_fetch_add(&shared[l].samples, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&shared[l].sum, v, __ATOMIC_RELAXED);
			break;
		case MUTEX:
			pthread_mutex_lock(&lock);
			shared[l].samples++;
			shared[l].sum += v;
			pthread_mutex_unlock(&lock);
			break;
		default:
			break;
		}
		__asm__ volatile("" : : "r"(acc) : "memory");
	}
	w->ns = (now() - t0) / OPS;
	__atomic_fetch_add(&sink, acc + h.slots[1].samples + local[1].samples,
			   __ATOMIC_RELAXED);
	free(h.slots);
	free(local);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median over the runs of the mean ns per op of @n threads. */
static double measure(enum kase c, int n)
{
	struct worker w[256];
	double r[RUNS];
	int run, i;

	for (run = 0; run < RUNS; run++) {
		pthread_barrier_init(&barrier, NULL, n);
		for (i = 0; i < n; i++) {
			w[i].cpu = i;
			w[i].c = c;
			pthread_create(&w[i].t, NULL, work, &w[i]);
		}
		r[run] = 0;
		for (i = 0; i < n; i++) {
			pthread_join(w[i].t, NULL);
			r[run] += w[i].ns / n;
		}
		pthread_barrier_destroy(&barrier);
	}
	qsort(r, RUNS, sizeof(r[0]), cmp);
	return r[RUNS / 2];
}

int main(void)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), n, c;

	if (ncpu > 256)
		ncpu = 256;
	for (n = 1; n <= ncpu; n = n == ncpu ? ncpu + 1 : ncpu) {
		double limit = measure(LIMIT, n);

		for (c = 0; c < NR_CASES; c++) {
			double ns = c == LIMIT ? limit : measure(c, n);

			char name[64];

			snprintf(name, sizeof(name), n > 1 ? "%s_%dthreads" : "%s",
				 names[c], n);
			printf("case %s ns %.2f ratio %.2f\n", name, ns, ns / limit);
		}
	}
	fprintf(stderr, "(sink %llu)\n", (unsigned long long)sink);
	return 0;
}
