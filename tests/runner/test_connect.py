"""Closing a connection whatever state its attempt to connect left it in."""

from __future__ import annotations

import socket

import fabric
import paramiko

from anfperf.runner.connect import close_quietly


def test_a_transport_made_but_not_started_closes_quietly():
    # Ctrl-C between paramiko making a connection's Transport and starting its thread left a
    # Thread that was never started: joining it raised RuntimeError, hiding the interrupt
    ours, theirs = socket.socketpair()
    conn = fabric.Connection("127.0.0.2")
    transport = paramiko.Transport(ours)
    conn.client._transport = transport  # as SSHClient.connect leaves it before start_client
    try:
        assert transport.ident is None  # never started
        close_quietly(conn)  # no RuntimeError
        assert conn.client.get_transport() is None
        assert ours.fileno() == -1  # its socket closed
    finally:
        theirs.close()
        ours.close()
