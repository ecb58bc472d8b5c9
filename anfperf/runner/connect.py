"""Opening a host's connection within bounds, and saying why it could not be opened.

A host that accepts TCP connections but whose SSH server never greets (hung, overloaded, a
firewall answering for it) fails in paramiko as ``SSHException: No existing session``: the
reason recorded is "no SSH banner within N s" instead; one that greets and then stalls fails
the same way, recorded as "SSH banner received, then no key exchange within N s". Each
connection logs under its host's name (:func:`~anfperf.runner.runlog.ssh_log_channel`), so
that the run's log says which host a traceback is about. A connection that failed is closed
at once, so that its socket and paramiko's thread do not outlive the attempt. Running out of
open files here is this machine's problem, not the host's, and is said so.
"""

from __future__ import annotations

import errno
import logging
import resource
import threading
from collections.abc import Iterable
from typing import Any

from anfperf.runner.runlog import ssh_log_channel
from anfperf.runner.security import describe_error

log = logging.getLogger(__name__)

#: Seconds between SSH keepalives (keeps idle connections through NAT and firewalls).
KEEPALIVE_S = 15
#: Seconds to wait for paramiko's thread to end once its connection is closed.
CLOSE_WAIT_S = 2.0
#: Errors of this machine, not of the host: out of open files (the process's, the system's).
LOCAL_LIMIT_ERRORS = (errno.EMFILE, errno.ENFILE)


class ConnectError(Exception):
    """A connection could not be opened: `reason` in words; `local` when this machine, not
    the host, is at fault."""

    def __init__(self, reason: str, local: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.local = local


def open_connection(conn: Any, answer_timeout_s: float, secrets: Iterable[str] = ()) -> None:
    """Open `conn` (a no-op when open) and bound its waits; closed again when it fails.

    Raises
    ------
    ConnectError
        Why it could not be opened (:func:`connect_reason`).
    """
    client = getattr(conn, "client", None)
    if hasattr(client, "set_log_channel"):  # a Fabric connection (not a local one)
        client.set_log_channel(ssh_log_channel(getattr(conn, "original_host", None) or conn.host))
    try:
        conn.open()
    except Exception as exc:
        reason = connect_reason(conn, exc, secrets)  # before closing: it looks at the transport
        close_quietly(conn)
        raise ConnectError(reason, local=is_local_limit(exc)) from exc
    bound_waits(conn, answer_timeout_s)


def connect_reason(conn: Any, exc: BaseException, secrets: Iterable[str] = ()) -> str:
    """Why `conn` could not be opened, in words the user can act on (secrets blanked)."""
    if is_local_limit(exc):
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        return (
            f"this machine ran out of open files (limit {soft}): raise it (ulimit -n) or "
            "connect to fewer hosts at once (--parallel)"
        )
    transport = _transport(conn)
    if transport is not None and not getattr(transport, "remote_version", None):
        if isinstance(exc.__context__, EOFError) or isinstance(exc, EOFError):
            return "the host closed the connection before its SSH banner"
        seconds = _banner_timeout_s(conn)
        within = f" within {seconds:g} s" if seconds else ""
        return f"no SSH banner{within} (its SSH server does not answer)"
    if transport is not None and transport.is_active() and not transport.initial_kex_done:
        # paramiko gave up waiting and says "No existing session": the server said hello only
        seconds = _connect_timeout_s(conn)
        within = f" within {seconds:g} s" if seconds else ""
        return f"SSH banner received, then no key exchange{within}"
    return describe_error(exc, secrets)


def is_local_limit(exc: BaseException) -> bool:
    """Whether `exc` is this machine running out of open files."""
    return isinstance(exc, OSError) and exc.errno in LOCAL_LIMIT_ERRORS


def bound_waits(conn: Any, answer_timeout_s: float) -> None:
    """Keep a hung host from blocking a request for an hour (paramiko's channel timeout) and
    send SSH keepalives; nothing to do for a local connection."""
    transport = getattr(conn, "transport", None)
    if transport is not None:
        transport.set_keepalive(KEEPALIVE_S)
        transport.channel_timeout = answer_timeout_s


def close_quietly(conn: Any) -> None:
    """Close `conn` and whatever its attempt to connect left open (errors ignored)."""
    try:
        conn.close()
    except Exception:  # closing a broken connection may fail; nothing left to save
        pass
    # Fabric closes only a connection that is up: one still waiting for the server's banner
    # keeps its socket and paramiko's thread until the banner timeout, unless closed here
    client = getattr(conn, "client", None)
    if client is not None and hasattr(client, "get_transport"):
        transport = _transport(conn)
        try:
            client.close()
        except Exception:
            pass
        # paramiko closes the socket only of a transport it started: one made but never
        # started (a Ctrl-C in between) would keep its file open until collected
        sock = getattr(transport, "sock", None)
        if sock is not None and transport.ident is None:
            try:
                sock.close()
            except OSError:
                pass
        # paramiko's thread ends a moment after its socket closes: waiting for it keeps the
        # threads of a fleet bounded by the hosts connecting at once (the next host takes this
        # one's place only when it is really gone); one never started has nothing to wait for,
        # and joining it would raise over the interrupt
        if (
            isinstance(transport, threading.Thread)
            and transport.ident is not None
            and transport is not threading.current_thread()
        ):
            transport.join(timeout=CLOSE_WAIT_S)


def raise_open_files_limit(need: int) -> int:
    """Raise this process's soft open-file limit towards `need` (up to the hard limit).

    Returns
    -------
    int
        The soft limit now.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= need:
        return soft
    new = need if hard == resource.RLIM_INFINITY else min(need, hard)
    if new > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
            soft = new
        except (ValueError, OSError) as exc:  # a container may refuse it
            log.info("open-file limit stays %d: %s", soft, exc)
    return soft


def _transport(conn: Any) -> Any:
    """paramiko's transport of a Fabric connection (also after a failed open), else None."""
    client = getattr(conn, "client", None)
    get = getattr(client, "get_transport", None)
    return get() if callable(get) else None


def _connect_timeout_s(conn: Any) -> float | None:
    """How long paramiko waits for the key exchange: the connect timeout [s]."""
    kwargs = getattr(conn, "connect_kwargs", None) or {}
    seconds = kwargs.get("timeout") or getattr(conn, "connect_timeout", None)
    return float(seconds) if seconds else None


def _banner_timeout_s(conn: Any) -> float | None:
    kwargs = getattr(conn, "connect_kwargs", None) or {}
    seconds = kwargs.get("banner_timeout") or getattr(conn, "connect_timeout", None)
    return float(seconds) if seconds else None
