"""One module per CLI sub-command; each exposes `register(cli: typer.Typer)`."""
