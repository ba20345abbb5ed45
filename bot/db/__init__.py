"""Storage: SQLModel tables, the engine, full-text search and the seed loader."""
