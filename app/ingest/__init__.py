"""The offline ingest pipeline: bytes in content/ to a database and a search index."""
