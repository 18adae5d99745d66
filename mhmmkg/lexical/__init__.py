"""Lexical measures over small sets of texts: BM25, TF-IDF, the recognition shortcut."""
