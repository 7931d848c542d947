/* SPDX-License-Identifier: MIT */
/*
 * manifest.h: a built web folder's manifest.json, the map from each source
 * file's name to the content-hashed name the build gave it, relative to
 * that folder: {"shell.js": "shell.1a2b3c4d5e.js", ...}. The web folder's
 * root has one, and so has each modules/NAME/ in it. Read at start, on the
 * main thread; only read afterwards.
 */
#ifndef HL_MANIFEST_H
#define HL_MANIFEST_H

#define MANIFEST_NAME "manifest.json"
#define MANIFEST_MAX_BYTES (1024 * 1024)

struct manifest;

/* Read DIR/manifest.json into *out. 0 with *out NULL when the folder has
 * none (an unbuilt folder); 0 with the map; HL_EINVAL after logging the
 * file and what is wrong with it (not a JSON object of strings, over
 * MANIFEST_MAX_BYTES); HL_EIO after logging why it cannot be read;
 * HL_ENOMEM. */
int manifest_read(struct manifest **out, const char *dir);
/* The name `name` was built to, or NULL when the manifest does not name it
 * (or m is NULL). Lives as long as the manifest. */
const char *manifest_lookup(const struct manifest *m, const char *name);
void manifest_free(struct manifest *m);

#endif
