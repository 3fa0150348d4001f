"""gestured in a GLib main loop: the socket is watched by GLib, never read in a blocking way, and the
connection comes back by itself when the daemon restarts.

    source = GestureSource(gestured.Client(path, kinds=["pinch"]), on_message)
    source.start()

`on_message` gets every message of the gestured module (clients/python): GestureEvent, Connected, Disconnected
(treat gestures in flight as cancelled), DeviceAdded, ... It runs in the main loop, like any GTK callback.
"""
import os
import sys

from gi.repository import GLib

try:
    import gestured  # installed: pip install ./clients/python, or Debian's python3-gestured
except ImportError:  # not installed: the module in this source tree
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python", "src"))
    import gestured


class GestureSource:
    def __init__(self, client, on_message):
        self.client = client
        self.on_message = on_message
        self._watch = None
        self._retry = None

    def start(self):
        self._connect()

    def stop(self):
        for source in (self._watch, self._retry):
            if source:
                GLib.source_remove(source)
        self._watch = self._retry = None
        self.client.close()

    def _connect(self):
        self._retry = None
        try:
            self.client.connect()
        except gestured.ConnectError as error:
            self._lost(gestured.Disconnected(str(error), error.retry_in))
            return GLib.SOURCE_REMOVE
        # connect() only sent the subscription: the replies come through _readable like everything else,
        # so the main loop never waits for the daemon.
        self._watch = GLib.io_add_watch(self.client.fileno(), GLib.PRIORITY_HIGH,
                                        GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, self._readable)
        return GLib.SOURCE_REMOVE

    def _readable(self, _fd, _condition):
        try:
            messages = self.client.read()
        except gestured.GesturedError as error:
            # A refused subscription or an unknown protocol: retrying soon will not help; say so, try
            # again at the longest backoff (the daemon may be upgraded or reconfigured meanwhile).
            self._watch = None
            self._lost(gestured.Disconnected(str(error), self.client.backoff_max))
            return GLib.SOURCE_REMOVE
        for message in messages:
            if isinstance(message, gestured.Disconnected):
                self._watch = None
                self._lost(message)
                return GLib.SOURCE_REMOVE
            self.on_message(message)
        return GLib.SOURCE_CONTINUE

    def _lost(self, message):
        self.on_message(message)
        self._retry = GLib.timeout_add(int(message.retry_in * 1000), self._connect)
