"""The KG in other formats and tools: exports (GraphML, RDF, BEIR, completion splits, ...)."""
