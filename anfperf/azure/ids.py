"""Which pool is a volume's: by resource id (subscription, resource group, account, pool).

Two pools of one account and pool name in other resource groups (or subscriptions) are other
pools: a volume is attached to the pool whose ``id`` is its own id's parent. Names are used
only where a file gives no ids, and then only when one pool has the name.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["pool_key", "pool_of_volume", "resource_id", "volume_pool_id"]

_NAME = "name:"


class _Pool(Protocol):
    resource_id: str
    resource_name: str


def resource_id(fields: dict) -> str:
    """A resource's ``id`` as Azure compares it (case-insensitive), '' when it has none."""
    rid = fields.get("id")
    return "/" + rid.strip("/").lower() if isinstance(rid, str) and rid.strip("/") else ""


def volume_pool_id(volume_id: str) -> str:
    """The id of a volume's pool: its own id up to ``/volumes/<name>`` ('' without an id)."""
    head, sep, _ = volume_id.rpartition("/volumes/")
    return head if sep else ""


def pool_key(pool: _Pool) -> str:
    """The key of a pool among others: its id, or its ARM name when the file gave no id."""
    return pool.resource_id or _NAME + pool.resource_name.lower()


def pool_of_volume(volume_id: str, volume_name: str, pools: dict[str, _Pool]) -> _Pool | None:
    """The pool of a volume (id and ARM name 'account/pool/volume') among `pools` (by
    :func:`pool_key`), None when none is known to be its pool.

    By id when the volume and the pool have one; by ARM name ('account/pool') only for a
    volume or pool without an id, and only when a single pool has that name.
    """
    own = volume_pool_id(volume_id)
    if own and own in pools:
        return pools[own]
    if "/" not in volume_name:
        return None
    name = volume_name.rsplit("/", 1)[0].lower()
    candidates = [
        p
        for p in pools.values()
        if p.resource_name.lower() == name and not (own and p.resource_id)  # ids that differ
    ]
    return candidates[0] if len(candidates) == 1 else None
