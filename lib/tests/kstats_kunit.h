/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the kstats KUnit suite (lib/tests/kstats_kunit.c) for the KUnit
 * suites of kstats' users: the files of /sys/kernel/debug/kstats, opened
 * and read as user space does.
 */
#ifndef _LIB_TESTS_KSTATS_KUNIT_H
#define _LIB_TESTS_KSTATS_KUNIT_H

struct file;
struct kunit;

struct file *kstats_kunit_open(const char *name, int flags);
void kstats_kunit_close(struct file *file);
char *kstats_kunit_read(struct kunit *test, const char *name);

#endif /* _LIB_TESTS_KSTATS_KUNIT_H */
