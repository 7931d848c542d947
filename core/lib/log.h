/* SPDX-License-Identifier: MIT */
/*
 * log.h: the server's log, one line per event on stderr (journald or the
 * terminal adds the time). Safe from any thread: each line is one write.
 */
#ifndef HL_LOG_H
#define HL_LOG_H

#define LOG_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Send the log to `path`, appended to (made 0640 when missing), from now
 * on, or back to the first standard error for an empty path: the file is
 * opened anew, so after logrotate moved it the next line goes to a new
 * one. 0, or HL_EIO after a line saying why (the log stays where it was). */
int log_open(const char *path);
void log_info(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_warn(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_error(const char *fmt, ...) LOG_PRINTF(1, 2);
/* Log and exit(70): for states the process cannot continue from. */
void fatal(const char *fmt, ...) LOG_PRINTF(1, 2) __attribute__((noreturn));

/* Monotonic time in microseconds, for step timings and latencies. */
long long now_us(void);
struct timespec;
/* CLOCK_MONOTONIC `us` from now, for pthread_cond_timedwait on a
 * condition variable set to that clock. */
void monotonic_in(long long us, struct timespec *ts);

#endif
