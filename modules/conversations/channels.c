/* SPDX-License-Identifier: MIT */
/*
 * channels.c: GET /api/channels, each channel a conversation may be on,
 * how a person calls it, and the module that delivers it on this server
 * (null: none, so its messages wait). The Channels page lists them, each
 * with its provider's page of settings.
 */
#include "conversations.h"

int conv_channels_list(struct hl_req *req)
{
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "data");
	hl_json_array(j);
	for (int i = 0; i < CONV_CHANNELS; i++) {
		hl_json_object(j);
		hl_json_key(j, "channel");
		hl_json_string(j, conv_channels[i].name);
		hl_json_key(j, "label");
		hl_json_string(j, conv_channels[i].label);
		hl_json_key(j, "provider");
		hl_json_string(j, hl_channel_provider(req, conv_channels[i].name));
		hl_json_object_end(j);
	}
	hl_json_array_end(j);
	hl_json_object_end(j);
	return 0;
}
