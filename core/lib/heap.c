/* SPDX-License-Identifier: MIT */
/*
 * heap.c: the glibc settings that keep a long-running server's resident
 * memory near what it uses. Each was found by the soak (tools/soak:
 * fifty clients and hostile ones for ten minutes), which judges the
 * resident anonymous memory; none is needed for correctness, and an
 * operator's environment always wins.
 *
 * Thread caches. glibc keeps, for every thread, up to seven freed blocks
 * of each size up to 1 KB, for that thread alone. civetweb hands each
 * connection to whichever of its workers (a hundred-odd) is idle, so in
 * turn every worker fills its cache; the soak's memory then grew by 1-2
 * MB a minute for ten minutes (+8 to +14 % from the second minute), and
 * stayed within 5 % with the caches off, at the same throughput within
 * the noise (SQLite, the busiest allocator, has its own per-connection
 * cache: sqlalloc.c). The caches can only be set through GLIBC_TUNABLES
 * as the program starts, hence the restart.
 *
 * Arenas. A thread that finds the arenas busy gets one of its own, up to
 * eight per core, and each keeps the free memory it has held: with a
 * hundred-odd workers the soak's heap settled near twice what it held in
 * use; one arena per core halved it.
 *
 * Large blocks. A large block (a CSV upload) is mapped on its own and
 * unmapped when freed, but glibc then raises that threshold to the
 * block's size, so later large blocks are cut from the heap and leave it
 * fragmented: the soak kept 14-18 MB free in the heap, 2-4 MB with the
 * threshold fixed. Fixed above the 1 MB that brotli takes for each answer
 * it compresses: mapped and unmapped each time, that made uncached lists
 * ten times slower. Fixing it also stops glibc raising the threshold for
 * giving the heap's top back to the system with it, which stays at 128
 * KB: brotli's block at the top was then given back and taken again for
 * each answer (uncached reads 25-50 % slower), so it is set as glibc
 * would have it, to twice the other.
 */
#include "lib/heap.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREAD_CACHES "glibc.malloc.tcache_count=0"
#define MMAP_THRESHOLD (2 * 1024 * 1024)

void heap_restart_without_thread_caches(char **argv)
{
#ifdef __GLIBC__
	const char *tunables = getenv("GLIBC_TUNABLES");
	char before[1024] = "", value[sizeof(before) + sizeof(THREAD_CACHES) + 1];
	if (tunables && strstr(tunables, "glibc.malloc.tcache"))
		return;
	if (tunables && snprintf(before, sizeof(before), "%s", tunables) >= (int)sizeof(before))
		return; /* too long to be ours to edit */
	snprintf(value, sizeof(value), "%s%s%s", before, *before ? ":" : "", THREAD_CACHES);
	if (setenv("GLIBC_TUNABLES", value, 1))
		return;
	/* By the program's own path, so that ps and top name it as before
	 * (started through /proc/self/exe, it is "exe"); through the link
	 * when the file has gone (an upgrade meanwhile). */
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		execv(self, argv);
	}
	execv("/proc/self/exe", argv);
	/* No /proc (a bare chroot): the caches stay on; the server works
	 * the same, with a little more memory. The variable is put back so
	 * that nothing else believes it. */
	if (tunables)
		setenv("GLIBC_TUNABLES", before, 1);
	else
		unsetenv("GLIBC_TUNABLES");
#else
	(void)argv;
#endif
}

/* Whether glibc's thread caches are off: GLIBC_TUNABLES as this process
 * sees it (getenv reads glibc's own copy: it cuts the original up). */
static const char *thread_caches(void)
{
	const char *t = getenv("GLIBC_TUNABLES");
	const char *cache = t ? strstr(t, "glibc.malloc.tcache_count=") : NULL;
	if (!cache)
		return "thread caches on";
	if (!strcmp(cache, THREAD_CACHES) || !strncmp(cache, THREAD_CACHES ":", sizeof(THREAD_CACHES)))
		return "thread caches off";
	return "thread caches as GLIBC_TUNABLES sets them";
}

void heap_tune(char *detail, size_t size)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int arenas = cores > 1 ? (int)cores : 1;
#ifdef M_ARENA_MAX
	if (!getenv("MALLOC_ARENA_MAX"))
		mallopt(M_ARENA_MAX, arenas);
	if (!getenv("MALLOC_MMAP_THRESHOLD_"))
		mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
	if (!getenv("MALLOC_TRIM_THRESHOLD_"))
		mallopt(M_TRIM_THRESHOLD, 2 * MMAP_THRESHOLD);
#endif
	const char *env_arenas = getenv("MALLOC_ARENA_MAX");
	const char *env_mmap = getenv("MALLOC_MMAP_THRESHOLD_");
	snprintf(detail, size, "%s, arenas %d, blocks from %s%s mapped on their own", thread_caches(),
		 env_arenas ? atoi(env_arenas) : arenas, env_mmap ? env_mmap : "2 MB",
		 env_mmap ? " bytes" : "");
}

void heap_give_back(void)
{
	malloc_trim(0);
}
