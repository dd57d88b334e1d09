// SPDX-License-Identifier: GPL-2.0
/* kstats: numbers as printed: units, 3 significant digits, bounds that hold. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kstats.h"

const char * const unit_names[] = { "ns", "us", "ms", "s" };

static int ndigits(uint64_t v)
{
	int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

static uint64_t pow10u(int e)
{
	uint64_t p = 1;

	while (e-- > 0)
		p *= 10;
	return p;
}

/*
 * @v / 10^@frac (@frac <= 19) exactly, in integer arithmetic, without
 * trailing zeros: 1023 and 9 give 0.000001023.
 */
const char *fmt_fixed(char *buf, size_t n, uint64_t v, int frac)
{
	uint64_t p = pow10u(frac), r = frac ? v % p : 0;
	int len = snprintf(buf, n, "%llu", (unsigned long long)(frac ? v / p : v));
	char f[40];

	if (r && len > 0 && (size_t)len < n) {
		snprintf(f, sizeof(f), "%0*llu", frac & 31, (unsigned long long)r);
		while (f[frac - 1] == '0')
			frac--;
		snprintf(buf + len, n - len, ".%.*s", frac, f);
	}
	return buf;
}

/*
 * -@m * 10^@e if @neg, else @m * 10^@e, of @unit (UNIT_IN() the values',
 * UNIT_OUT() the one to print them in): in that one, or by default in
 * the largest unit up to s where it is 1000 or more: each digit of @m
 * printed, no other; with an exponent from 100000 s on, or in a unit of
 * -u from 10^6 of it on and below 0.001.
 */
static const char *fmt_digits(char *buf, size_t n, int neg, uint64_t m, int e, int unit)
{
	const char *sign = neg && m ? "-" : "";
	int u = UNIT_IN(unit) - 1, out = UNIT_OUT(unit) - 1;
	uint64_t p;

	if (out >= 0) {
		e += 3 * (u - out);
		u = out;
	}
	while (out < 0 && u < 3 && ndigits(m) + e > 3) {
		e -= 3;
		u++;
	}
	if (!m) {
		snprintf(buf, n, "0 %s", unit_names[u]);
	} else if ((out < 0 && u == 3 && ndigits(m) + e > 5) ||
		   (out >= 0 && (ndigits(m) + e > 6 || ndigits(m) + e < -2))) {
		/*
		 * From 100000 s on, as a power of ten (1.85e10 s), each digit
		 * of @m still printed: a column of such values stays narrow;
		 * in a unit of -u, from 10^6 of it on and below 0.001 (as
		 * kstats-plot's ticks).
		 */
		char d[24];
		int k = snprintf(d, sizeof(d), "%llu", (unsigned long long)m);

		snprintf(buf, n, "%s%c%s%se%d %s", sign, d[0], k > 1 ? "." : "", d + 1, k - 1 + e,
			 unit_names[u]);
	} else if (e >= 0) {
		snprintf(buf, n, "%s%llu%.*s %s", sign, (unsigned long long)m, e,
			 "00000000000000000000", unit_names[u]);
	} else if (e < -19) {
		snprintf(buf, n, "0 %s", unit_names[u]);
	} else {
		p = pow10u(-e);
		snprintf(buf, n, "%s%llu.%0*llu %s", sign, (unsigned long long)(m / p), -e,
			 (unsigned long long)(m % p), unit_names[u]);
	}
	return buf;
}

/* @v cut to 3 significant digits, rounded as @dir: *@m * 10^*@e. */
static void sig3_u64(uint64_t v, int dir, uint64_t *m, int *e)
{
	int d = ndigits(v);
	uint64_t p, r;

	*m = v;
	*e = 0;
	if (d <= 3)
		return;
	p = pow10u(d - 3);
	r = v % p;
	*m = v / p;
	*e = d - 3;
	if ((dir == RND_UP && r) || (dir == RND_NEAR && r >= p - r))
		(*m)++;
	if (*m == 1000) {
		*m = 100;
		(*e)++;
	}
}

/*
 * A number in @unit (enum kstats_unit), scaled up to s, with 3 significant
 * digits (trailing zeros kept when @pad: a column of values reads alike),
 * rounded as @dir, so that a bound printed still holds; plain with no
 * unit: @v exactly, an integer.
 */
static const char *fmt_u64(char *buf, size_t n, uint64_t v, int dir, int pad, int unit)
{
	uint64_t m;
	int e, d;

	if (!unit) {
		snprintf(buf, n, "%llu", (unsigned long long)v);
		return buf;
	}
	sig3_u64(v, dir, &m, &e);
	d = ndigits(m);
	if (pad && v && d < 3) {
		m *= pow10u(3 - d);
		e -= 3 - d;
	}
	return fmt_digits(buf, n, 0, m, e, unit);
}

const char *fmt_num(char *buf, size_t n, double v, int dir, int pad, int unit)
{
	double a = fabs(v), x = 0;
	int neg = v < 0, e, i;

	if (!unit || !isfinite(v)) {
		snprintf(buf, n, "%.0f", dir == RND_DOWN ? floor(v) : dir == RND_UP ? ceil(v) : v);
		return buf;
	}
	if (neg)
		dir = -dir;
	if (a == floor(a) && a < 0x1p64) {
		fmt_u64(buf + neg, n - neg, (uint64_t)a, dir, pad, unit);
		if (neg)
			buf[0] = '-';
		return buf;
	}
	/* a = x * 10^e, x rounded as dir to 3 digits (100 to 999). */
	e = (int)floor(log10(a)) - 2;
	for (i = 0; i < 4; i++) {
		x = e >= 0 ? a / pow(10, e) : a * pow(10, -e);
		x = dir == RND_DOWN ? floor(x) : dir == RND_UP ? ceil(x) : round(x);
		if (x >= 1000)
			e++;
		else if (x < 100)
			e--;
		else
			break;
	}
	return fmt_digits(buf, n, neg, x < 100 ? 100 : x >= 1000 ? 999 : (uint64_t)x, e, unit);
}

/* A value: 3 significant digits with --unit (2.40 us above 2.38 us). */
const char *fmt_val(char *buf, size_t n, double v, int unit)
{
	return fmt_num(buf, n, v, RND_NEAR, 1, unit);
}

/* Bounds, rounded outwards: what is printed holds. */
const char *fmt_lo(char *buf, size_t n, uint64_t v, int unit)
{
	return fmt_u64(buf, n, v, RND_DOWN, 0, unit);
}

const char *fmt_hi(char *buf, size_t n, uint64_t v, int unit)
{
	return fmt_u64(buf, n, v, RND_UP, 0, unit);
}

/* An upper bound in a column of values: 3 digits, trailing zeros kept. */
const char *fmt_hi3(char *buf, size_t n, uint64_t v, int unit)
{
	return fmt_u64(buf, n, v, RND_UP, 1, unit);
}

/*
 * A value known to lie in [@lo, @hi] (a slot's mean, for a percentile),
 * printed to what that resolution supports: the fewest significant
 * digits whose last is no coarser than the slot's width and whose
 * rounding of @v still lies in the slot, in @unit (scaled as fmt_val()
 * scales) or plain. A slot 50% wide (frac_bits 1) gives 161718 as
 * 160000, one 3% wide (frac_bits 5) as 162000, one 0.3% wide (frac_bits
 * 8) as 161700; 1576796 in [1572864, 2097151] as 1600000, not 2000000.
 * Exact in integers up to 2^64 - 1.
 */
const char *fmt_in_slot(char *buf, size_t n, double v, uint64_t lo, uint64_t hi, int unit)
{
	uint64_t vi, m, p;
	int k, d, e;

	vi = !(v > 0) ? 0 : v >= 0x1p64 ? UINT64_MAX : (uint64_t)(v + 0.5);
	vi = vi < lo ? lo : vi > hi ? hi : vi;
	k = ndigits(vi);
	for (d = 1; d <= k; d++) {
		p = pow10u(k - d);
		m = vi / p + (vi % p >= p - p / 2);
		/*
		 * A digit coarser than the slot (its rounding may lie far from
		 * @v), rounded up past 2^64 - 1, or out of the slot.
		 */
		if (p - 1 > hi - lo || m > UINT64_MAX / p || m * p < lo || m * p > hi)
			continue;
		if (!unit) {
			snprintf(buf, n, "%llu", (unsigned long long)(m * p));
			return buf;
		}
		/* 995 rounded to 1 digit is 10 x 100: 1 us, not 1.0 us. */
		for (e = k - d; m && m % 10 == 0; e++)
			m /= 10;
		return fmt_digits(buf, n, 0, m, e, unit);
	}
	return fmt_val(buf, n, v, unit);
}

/*
 * A bound exactly, in integer arithmetic: with a @unit, in UNIT_OUT(), or
 * by default in the largest unit up to s where it is 1 or more (1151 ns:
 * 1.151 us).
 */
const char *fmt_exact(char *buf, size_t n, uint64_t v, int unit)
{
	char num[40];
	int u = UNIT_IN(unit) - 1, out = UNIT_OUT(unit) - 1, k = 0;

	if (!unit)
		return fmt_fixed(buf, n, v, 0);
	if (out >= 0 && out < u) {
		/* In a smaller unit: 3 zeros a step, after a value not 0. */
		snprintf(buf, n, "%llu%.*s %s", (unsigned long long)v, v ? 3 * (u - out) : 0,
			 "000000000", unit_names[out]);
		return buf;
	}
	if (out >= 0)
		k = out - u;
	while (out < 0 && u + k < 3 && v >= pow10u(3 * (k + 1)))
		k++;
	snprintf(buf, n, "%s %s", fmt_fixed(num, sizeof(num), v, 3 * k), unit_names[u + k]);
	return buf;
}

/*
 * The percentile as asked for: the fewest significant digits that read
 * back as @q (%g's 6 would print 99.9999999 as 100).
 */
const char *pct_name(char *buf, size_t n, double q)
{
	int digits;

	for (digits = 6; digits < 17; digits++) {
		snprintf(buf, n, "%.*g", digits, q);
		if (strtod(buf, NULL) == q)
			break;
	}
	return buf;
}

/*
 * @s as a terminal may show it: each control character (a byte below 0x20,
 * or 0x7f) as \xNN, so that a name cannot move the cursor, clear the
 * screen or split a line, and a backslash as \\, so that a name with the
 * text \x1b reads apart from one with the character (as ls -b); cut to
 * fit @n bytes, never inside an escape.
 */
const char *shown(char *buf, size_t n, const char *s)
{
	size_t k = 0;

	for (; *s && k + 1 < n; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c == 0x7f) {
			if (k + 5 > n)
				break;
			k += snprintf(buf + k, n - k, "\\x%02x", c);
		} else if (c == '\\') {
			if (k + 3 > n)
				break;
			buf[k++] = '\\';
			buf[k++] = '\\';
		} else {
			buf[k++] = c;
		}
	}
	buf[k] = '\0';
	return buf;
}
