"""Ingest: benchmark outputs of fio, Vdbench and DiskSpd into one tidy frame."""
