/* SPDX-License-Identifier: MIT */
/*
 * log.c: the log lines of log.h, and the monotonic clock they are timed by.
 */
#include "lib/log.h"

#include <hyperlevel/hyperlevel.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The standard error the process started with, once the log has left it. */
static int first_stderr = -1;

int log_open(const char *path)
{
	if (!path || !*path) {
		if (first_stderr >= 0)
			dup2(first_stderr, STDERR_FILENO);
		return 0;
	}
	if (first_stderr < 0)
		first_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) {
		log_error("%s: the log cannot be opened: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return HL_EIO;
	}
	close(fd);
	return 0;
}

static void emit(const char *prefix, const char *fmt, va_list ap)
{
	char line[2048];
	int n = snprintf(line, sizeof(line), "%s", prefix);
	int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	ssize_t w = write(STDERR_FILENO, line, len);
	(void)w;
}

void log_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("warning: ", fmt, ap);
	va_end(ap);
}

void log_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("error: ", fmt, ap);
	va_end(ap);
}

HL_API void hl_log(const char *module, const char *fmt, ...)
{
	char prefix[80];
	snprintf(prefix, sizeof(prefix), "[%.64s] ", module ? module : "?");
	va_list ap;
	va_start(ap, fmt);
	emit(prefix, fmt, ap);
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("fatal: ", fmt, ap);
	va_end(ap);
	exit(70);
}

long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void monotonic_in(long long us, struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += us / 1000000;
	ts->tv_nsec += (us % 1000000) * 1000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}
