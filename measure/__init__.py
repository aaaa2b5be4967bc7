"""Measuring tools, kept apart from the product: benchmarks, the generated corpus, evaluation, a local server."""
