/* SPDX-License-Identifier: MIT */
/*
 * conf.h: reading `key = value` files, the format of hyperlevel.conf and of
 * plugins.d/NAME.conf. Lines starting with '#' and blank lines are ignored;
 * values may be quoted with double quotes to keep surrounding spaces.
 */
#ifndef HL_CONF_H
#define HL_CONF_H

/* Called for each setting with its 1-based line; a non-zero return stops the
 * reading and is returned by conf_read. */
typedef int conf_fn(void *arg, const char *key, const char *value, int line);

/* Reads `path`. Returns 0, the callback's non-zero value, or HL_EIO when the
 * file cannot be opened (errno is kept) or HL_EINVAL after logging
 * "PATH:LINE: ..." for a malformed line. */
int conf_read(const char *path, conf_fn *fn, void *arg);

/* Sets `key` to `value` in `path`, keeping every other line as it is: the
 * line that sets it is rewritten, or, when none does, one is put before
 * the first setting (after the opening comments); a missing file is
 * made (0644). The new text replaces the old at once: a temporary file,
 * given the old one's owner, group and mode, renamed over it (over the
 * file a symlink points to, for a symlink). 0, or HL_EIO after logging
 * why. */
int conf_set(const char *path, const char *key, const char *value);

/* Parses yes/no, on/off, true/false, 1/0; -1 for anything else. */
int conf_bool(const char *s);
/* Parses a decimal integer in [min, max]; 0 or HL_EINVAL. */
int conf_int(const char *s, long long min, long long max, long long *out);

#endif
