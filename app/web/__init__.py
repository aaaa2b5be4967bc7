"""The web surfaces: HTML pages and the JSON API over one read layer."""
