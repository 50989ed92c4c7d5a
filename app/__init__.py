"""lossforensics' I/O side: ingest, storage, HTTP API, CLI, client and reports."""
