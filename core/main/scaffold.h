/* SPDX-License-Identifier: MIT */
/*
 * scaffold.h: `hyperlevel new-module NAME [DIR]` (scaffold.c).
 */
#ifndef HL_SCAFFOLD_H
#define HL_SCAFFOLD_H

#include "lib/config.h"

/* Write a new module folder `dir` (NULL: ./NAME) from the templates in
 * cfg->template_dir. Without `force`, `dir` must lie inside the current
 * folder or the user's home. 0; HL_EINVAL (a bad name or one a shipped
 * or installed module has, `dir` exists or lies elsewhere), HL_ENOENT (no
 * templates) or HL_EIO, each after one line saying why, and with nothing
 * left behind. */
int scaffold_module(const struct config *cfg, const char *name, const char *dir, int force);

#endif
