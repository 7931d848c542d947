/* SPDX-License-Identifier: MIT */
/*
 * currency.h: the currencies a sub-account may keep its amounts in: ISO
 * 4217's active codes and their minor units, the digits after the point
 * (USD 2: amounts are kept in cents; JPY 0; KWD 3). currency.c holds the
 * list, as the standard publishes it.
 */
#ifndef HL_CURRENCY_H
#define HL_CURRENCY_H

/* The minor units of `code` ("USD"), or -1 when it is not an active ISO
 * 4217 code (upper case, three letters). */
int currency_digits(const char *code);

#endif
