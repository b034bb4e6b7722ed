"""Live connections (websockets and event streams) of the tables: the caps they count against,
who is present, and the broadcast of each connection's own view."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable, Dict, FrozenSet, Optional

from ..errors import BusyError, ServerFullError, TableError
from ..limits import ServerLimits
from .table import Table
from .views import view

__all__ = ["Connection", "Connections", "spectators_frame"]


def spectators_frame(table: Table) -> Dict[str, Any]:
    """How many connections of ``table`` watch it without a seat (websockets and event streams)."""
    return {"type": "spectators", "count": sum(1 for c in table.connections if not c.seats)}


def _dumps(message: Dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


class Connection:
    """One live websocket: the seats it acts for (empty for a spectator), the client's address and
    its outgoing queue of JSON texts."""

    QUEUE = 64  # messages; a client that falls this far behind is dropped

    def __init__(self, seats: FrozenSet[int], client: str = "?") -> None:
        self.seats = seats
        self.client = client
        self.queue: asyncio.Queue[Optional[str]] = asyncio.Queue(self.QUEUE)
        self.chat = False  # takes part in the table's chat (a websocket that said hello; chat.py)
        self.chat_name: Optional[str] = None  # a spectator's name in the chat, given at its first message
        self.account: Optional[str] = None  # the account of the page's session cookie (a block hides chat: chat.py)

    def send(self, message: Dict[str, Any]) -> None:
        self.send_text(_dumps(message))

    def send_text(self, text: str) -> None:
        """Queue ``text`` (a message serialized once for every connection that gets it)."""
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.close()

    def close(self) -> None:
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)


class Connections:
    """The connections of every table: ``sockets`` counts each client address's open ones (and its
    waiting long-polls). ``on_last_left(table)`` runs when the last connection of a table leaves;
    ``on_first_use(table)`` when a human seat first connects to a table nobody used yet (kept, so
    that the table is not abandoned after a restart either)."""

    def __init__(self, limits: ServerLimits, on_last_left: Callable[[Table], None],
                 on_first_use: Callable[[Table], None] = lambda table: None,
                 on_seats_left: Callable[[Table, FrozenSet[int]], None] = lambda table, seats: None) -> None:
        self.limits = limits
        self.sockets: Dict[str, int] = {}  # client address -> its open table websockets
        self.total = 0  # the sum of ``sockets``, kept as it changes (asked before every connection)
        self._on_last_left = on_last_left
        self._on_first_use = on_first_use
        #: ``on_seats_left(table, seats)``: every connection of these seats closed (the rematch offer, rematch.py)
        self.on_seats_left = on_seats_left

    def refusal(self, client: str) -> Optional[TableError]:
        """Why one more connection of ``client`` is refused whatever its table (the server's cap:
        :class:`~..errors.ServerFullError`; the client's: :class:`~..errors.BusyError`), or None.
        Cheap enough to ask before anything else of a request (``http.ConnectionGate``)."""
        limits = self.limits
        if self.total >= limits.max_sockets:
            return ServerFullError(f"the server already has {limits.max_sockets} open table connections; try again "
                                   "later")
        if self.sockets.get(client, 0) >= limits.max_sockets_per_client:
            return BusyError(f"your address already has {limits.max_sockets_per_client} open table connections and "
                             "waiting requests, the most one client may have: close some first")
        return None

    def admit(self, table: Table, client: str) -> None:
        """Count one more connection of ``client`` at ``table`` against the caps, or refuse it
        (:meth:`refusal`, or the table's cap: :class:`~..errors.ServerFullError`). A websocket is
        counted from its handshake on, so it is refused before it is accepted, and one waiting to
        say hello holds its place. :meth:`release` gives the place back."""
        refused = self.refusal(client)
        if refused is not None:
            raise refused
        if table.admitted >= self.limits.max_sockets_per_table:
            raise ServerFullError(f"this table already has {self.limits.max_sockets_per_table} connections, the most "
                                  "it takes; try again later")
        self.hold(client)
        table.admitted += 1

    def hold(self, client: str) -> None:
        """Count one more open connection or waiting request of ``client`` (BusyError past its cap);
        :meth:`unhold` gives it back."""
        held = self.sockets.get(client, 0)
        if held >= self.limits.max_sockets_per_client:
            raise BusyError(f"your address already has {held} open table connections and waiting requests, the "
                            "most one client may have: close some first")
        self.sockets[client] = held + 1
        self.total += 1

    def unhold(self, client: str) -> None:
        held = self.sockets.pop(client, 0)
        if held > 1:
            self.sockets[client] = held - 1
        self.total -= min(held, 1)

    def release(self, table: Table, client: str) -> None:
        """Give back a place :meth:`admit` counted."""
        table.admitted -= 1
        self.unhold(client)

    def connect(self, table: Table, conn: Connection) -> None:
        """:meth:`admit` and :meth:`attach` (refused past the caps); :meth:`disconnect` undoes both."""
        self.admit(table, conn.client)
        self.attach(table, conn)

    def disconnect(self, table: Table, conn: Connection) -> None:
        if conn in table.connections:
            self.detach(table, conn)
            self.release(table, conn.client)

    def attach(self, table: Table, conn: Connection) -> None:
        """Add an admitted connection: it gets its view; the others hear of it only if a seat came
        online (a presence message of one flag per seat), so a connection costs the same at any
        audience size."""
        table.connections.add(conn)
        if conn.seats and not table.used:
            table.used = True
            if not table.over:
                self._on_first_use(table)
        came = [p for p in conn.seats if table.present.get(p, 0) == 0]
        for p in conn.seats:
            table.present[p] = table.present.get(p, 0) + 1
        conn.send_text(_state(table, conn.seats))
        if came:
            self._presence(table, skip=conn)
        if not conn.seats:
            self._spectators(table)

    def detach(self, table: Table, conn: Connection) -> None:
        """Remove an attached connection (its place stays counted until :meth:`release`)."""
        if conn not in table.connections:
            return
        table.connections.discard(conn)
        if not table.connections:
            self._on_last_left(table)
        gone = set()
        for p in conn.seats:
            table.present[p] -= 1
            if table.present[p] == 0:
                del table.present[p]
                gone.add(p)
        if gone:
            self._presence(table)
            self.on_seats_left(table, frozenset(gone))
        if not conn.seats:
            self._spectators(table)

    @staticmethod
    def _spectators(table: Table) -> None:
        """A spectator came or left: the players' pages (seat websockets in the chat) hear the new
        count; other spectators and the event streams do not, so a spectator costs the same at any
        audience size."""
        text = _dumps(spectators_frame(table))
        for conn in list(table.connections):
            if conn.seats and conn.chat:
                conn.send_text(text)

    def _presence(self, table: Table, skip: Optional[Connection] = None) -> None:
        text = _dumps({"type": "presence", "connected": [p in table.present for p in range(len(table.seats))]})
        for conn in list(table.connections):
            if conn is not skip:
                conn.send_text(text)

    @staticmethod
    def tell(table: Table, message: Dict[str, Any]) -> None:
        """Send one message (serialized once) to every connection of ``table``."""
        text = _dumps(message)
        for conn in list(table.connections):
            conn.send_text(text)

    def broadcast(self, table: Table) -> None:
        """Send every connection its own view (one view per distinct set of seats, serialized once),
        at the end of this turn of the event loop: changes made together go out as one state."""
        event, table.changed = table.changed, asyncio.Event()
        event.set()  # wake the long-polls: they read the table again
        if not table.connections or table.flush is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a direct call): at once
            self._flush(table)
            return
        table.flush = loop.call_soon(self._flush, table)

    @staticmethod
    def _flush(table: Table) -> None:
        table.flush = None
        if not table.connections:
            return
        full = table.game.to_dict()
        texts: Dict[FrozenSet[int], str] = {}
        for conn in list(table.connections):
            text = texts.get(conn.seats)
            if text is None:
                text = texts[conn.seats] = _state(table, conn.seats, full)
            conn.send_text(text)


def _state(table: Table, seats: FrozenSet[int], full: Optional[Dict[str, Any]] = None) -> str:
    """A ``state`` frame: ``{"type":"state","view":...}``, compact JSON."""
    return '{"type":"state","view":' + view(table, seats, full).model_dump_json() + "}"
