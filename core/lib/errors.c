/* SPDX-License-Identifier: MIT */
/*
 * errors.c: the message of each HL_E code (one list, as libuv keeps it).
 */
#include <hyperlevel/hyperlevel.h>

HL_API const char *hl_strerror(int err)
{
	switch (err) {
	case HL_OK: return "success";
	case HL_ENOMEM: return "out of memory";
	case HL_EINVAL: return "invalid argument";
	case HL_ENOENT: return "not found";
	case HL_EEXIST: return "already exists";
	case HL_EDB: return "database error";
	case HL_EIO: return "input/output error";
	case HL_ESTATE: return "called at the wrong time";
	case HL_ETOOBIG: return "too big";
	case HL_EABI: return "ABI mismatch";
	}
	return "unknown error";
}
