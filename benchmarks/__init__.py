"""Benchmarks: the engine against textbook searches, and the service against its web stack."""
