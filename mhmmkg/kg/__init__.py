"""The knowledge graph and its queries: the data model, the graph API, statistics, pictures."""
