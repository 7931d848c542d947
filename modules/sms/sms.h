/* SPDX-License-Identifier: MIT */
/*
 * sms.h: the sms module's parts. sms.c registers them; settings.c answers
 * and changes a sub-account's Twilio account; send.c delivers the "sms"
 * channel through Twilio's Programmable Messaging API (prepare and
 * conclude, called by the core's sender); hooks.c takes what Twilio
 * calls back with (status callbacks, texts received), signed; tests.c
 * sends the test texts admins ask for.
 */
#ifndef SMS_H
#define SMS_H

#include <hyperlevel/hyperlevel.h>

/* The API's address, without a trailing "/": twilio_base_url. */
extern const char *sms_base_url;

int sms_settings_get(struct hl_req *req);     /* settings.c */
int sms_settings_put(struct hl_req *req);
int sms_settings_delete(struct hl_req *req);
int sms_test_post(struct hl_req *req);        /* tests.c */
int sms_test_get(struct hl_req *req);
int sms_tests_job(struct hl_job_run *run);
int sms_status_hook(struct hl_req *req);      /* hooks.c */
int sms_inbound_hook(struct hl_req *req);
int sms_prepare(struct hl_job_run *run, struct hl_send *s, const struct hl_outgoing *m); /* send.c */
void sms_conclude(struct hl_send *s);

#endif
