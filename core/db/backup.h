/* SPDX-License-Identifier: MIT */
/*
 * backup.h: copies of the database in DATA_DIR/backups, made by VACUUM INTO
 * from a read-only connection of their own: once a day on a thread of their
 * own (backup_start), or on demand (`hyperlevel backup`, backup_make).
 *
 * A copy is written under a temporary name, checked with PRAGMA
 * quick_check, flushed to disk and only then renamed to
 * hyperlevel-YYYYmmddTHHMMSSZ.db (UTC), so a file with a backup's name is
 * always a whole, checked copy. After a good copy the oldest are deleted
 * until backup_keep remain; only files with a backup's name are deleted.
 *
 * The connection never writes and never checkpoints (SQLite 3.40's WAL bug
 * needs two checkpointing connections, and the server's writer is the one),
 * and nothing here takes the data folder's lock, so `hyperlevel backup` can
 * run (from cron, say) while the server runs.
 */
#ifndef HL_BACKUP_H
#define HL_BACKUP_H

#include "lib/config.h"

#include <limits.h>
#include <time.h>

struct backup;

/* A backup file: where it is, its size, when it was written (its mtime). */
struct backup_info {
	char path[PATH_MAX];
	long long bytes;
	time_t when;
	long long ms;      /* how long making it took (backup_make only) */
};

/* Make one backup now, check it and prune the old ones. Any thread; does
 * not need the server. Returns 0 and fills *out, or HL_EDB / HL_EIO /
 * HL_ENOMEM after logging one line (the temporary copy is then removed). */
int backup_make(const struct config *cfg, struct backup_info *out);

/* Start the daily thread. Its first backup is made when the newest one is
 * 24 h old or there is none, then every 24 h (a failure retries in an
 * hour). `cfg` must outlive the thread. 0, HL_ENOMEM or HL_EIO. */
int backup_start(struct backup **out, const struct config *cfg);
/* Stop the thread promptly, interrupting a copy under way (its temporary
 * file is removed). NULL is ignored. */
void backup_stop(struct backup *b);
/* When the thread started, when it makes the next copy (0 while one is
 * being made), and when its last copy failed (0 when it succeeded or none
 * was tried yet). Any thread. */
void backup_schedule(struct backup *b, time_t *started, time_t *next, time_t *failed);

/* The newest backup in DATA_DIR/backups by mtime (bytes and when filled,
 * ms 0); a copy dated over 5 minutes ahead (written under a wrong clock)
 * is not believed, or it would put the next copies off. 0; HL_ENOENT when
 * there is none (or no folder); HL_EIO when the folder cannot be read
 * (errno says why). Any thread. */
int backup_newest(const char *data_dir, struct backup_info *out);

#endif
