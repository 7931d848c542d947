/* SPDX-License-Identifier: MIT */
/*
 * scaffold.h: `hyperlevel new-module NAME [DIR]` (scaffold.c).
 */
#ifndef HL_SCAFFOLD_H
#define HL_SCAFFOLD_H

#include "config.h"

/* Write a new module folder `dir` (NULL: ./NAME) from the templates in
 * cfg->template_dir. 0; HL_EINVAL (a bad name, `dir` exists), HL_ENOENT
 * (no templates) or HL_EIO, each after one line saying why, and with
 * nothing left behind. */
int scaffold_module(const struct config *cfg, const char *name, const char *dir);

#endif
