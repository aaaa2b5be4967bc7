"""The bilingual FAQ portal: ingest markdown FAQs, search them, serve pages and a JSON API."""
