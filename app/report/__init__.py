"""Reports of one run: an annotated PNG (plot.py) and a self-contained HTML page (html.py).
Neither imports FastAPI, so the CLI audit can reuse them."""
