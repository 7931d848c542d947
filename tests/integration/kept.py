# SPDX-License-Identifier: MIT
"""What the tests' servers of others (the SMTP relay, the Twilio double)
share: the messages they kept, under a lock, and a wait for them."""

import threading
import time


class Kept:
    """`messages`, appended to under `lock`; `what` names them in a
    failure ("messages", "texts")."""

    def __init__(self, name, what):
        self.messages = []
        self.lock = threading.Lock()
        self.name, self.what = name, what

    def wait_for(self, n, seconds=20):
        """The messages once there are `n`, or AssertionError after `seconds`."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            with self.lock:
                if len(self.messages) >= n:
                    return list(self.messages)
            time.sleep(0.02)
        raise AssertionError("the %s has %d %s, not %d" % (self.name, len(self.messages), self.what, n))
