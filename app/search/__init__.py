"""Full-text search: bilingual analysis, the Whoosh index, and queries over it."""
