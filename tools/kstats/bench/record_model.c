// SPDX-License-Identifier: GPL-2.0
/*
 * Native benchmark of the kstats record path, for the machines where the
 * VM can only emulate: the kstats_record() of include/linux/kstats.h itself,
 * compiled in userspace against the few kernel definitions it needs
 * (include/ next to this file), each thread pinned to its own CPU and
 * adding to its own histogram, against the floor of two this_cpu_add() on
 * a slot picked from the same values, a shared log2 histogram updated with
 * atomic adds (the BPF-map style) and one under a mutex. Prints, per case,
 * the median ns per operation over the runs (all cases take turns in each
 * run), one thread and then one per CPU.
 *
 * Per-CPU memory is modelled as x86 has it: a __percpu pointer is an
 * offset from a segment base (%gs in the kernel, %fs here), and the per-CPU
 * areas are the threads' static TLS blocks, at the same offset in each.
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

#include <linux/kstats.h>

#define OPS		1000000
#define RUNS		15
#define MAX_BITS	8
#define MAX_SLOTS	((65 - MAX_BITS) << MAX_BITS)
#define MAX_CHUNKS	((int)((MAX_SLOTS + KSTATS_CHUNK_SLOTS - 1) / KSTATS_CHUNK_SLOTS))

/* The per-CPU area: at the same offset from the segment base in every thread. */
static __thread struct kstats_slot pcpu_area[MAX_SLOTS];

static struct kstats_slot __percpu *pcpu_offset(void *p)
{
	char *base;

	__asm__("mov %%fs:0, %0" : "=r"(base));
	return (struct kstats_slot __percpu *)((char *)p - base);
}

struct slot {
	uint64_t samples, sum;
};

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

/* The values of cost_next() in samples/kstats/kstats_bench.c, which it models. */
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
	struct kstats_slot __percpu *limit = pcpu_offset(pcpu_area);
	struct kstats *ks = calloc(1, sizeof(*ks) + MAX_CHUNKS * sizeof(ks->chunk[0]));
	uint64_t x = w->cpu + 1, acc = 0;
	cpu_set_t set;
	double t0;
	long i;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (!ks)
		exit(1);
	/* What kstats_new() sets up, with the chunks in one per-CPU area. */
	ks->active = true;
	ks->frac_bits = w->c == REC0 ? 0 : w->c == REC8 ? 8 : 3;
	ks->nr_slots = kstats_nr_slots(ks->frac_bits);
	ks->nr_chunks = MAX_CHUNKS;
	for (i = 0; i < MAX_CHUNKS; i++)
		ks->chunk[i] = limit + i * KSTATS_CHUNK_SLOTS;
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
			this_cpu_add(limit[v & 511].samples, 1);
			this_cpu_add(limit[v & 511].sum, v);
			break;
		case REC0:
		case REC3:
		case REC8:
			kstats_record(ks, v);
			break;
		case REC3_HOT:
			kstats_record(ks, 1000 + (v & 0));
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
	__atomic_fetch_add(&sink, acc + pcpu_area[1].samples, __ATOMIC_RELAXED);
	free(ks);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The mean ns per op of @n threads running case @c at once. */
static double measure(enum kase c, int n)
{
	struct worker w[256];
	double r = 0;
	int i;

	pthread_barrier_init(&barrier, NULL, n);
	for (i = 0; i < n; i++) {
		w[i].cpu = i;
		w[i].c = c;
		pthread_create(&w[i].t, NULL, work, &w[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(w[i].t, NULL);
		r += w[i].ns / n;
	}
	pthread_barrier_destroy(&barrier);
	return r;
}

int main(void)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), n, c, run;
	static double r[NR_CASES][RUNS];

	if (ncpu > 256)
		ncpu = 256;
	for (n = 1; n <= ncpu; n = n == ncpu ? ncpu + 1 : ncpu) {
		/* The cases take turns: drifts of the machine hit them all. */
		for (run = 0; run < RUNS; run++)
			for (c = 0; c < NR_CASES; c++)
				r[c][run] = measure(c, n);
		for (c = 0; c < NR_CASES; c++)
			qsort(r[c], RUNS, sizeof(r[c][0]), cmp);
		for (c = 0; c < NR_CASES; c++) {
			double ns = r[c][RUNS / 2];
			char name[64];

			snprintf(name, sizeof(name), n > 1 ? "%s_%dthreads" : "%s",
				 names[c], n);
			printf("case %s ns %.2f ratio %.2f\n", name, ns,
			       ns / r[LIMIT][RUNS / 2]);
		}
	}
	fprintf(stderr, "(sink %llu)\n", (unsigned long long)sink);
	return 0;
}
