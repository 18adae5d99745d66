"""The built dataset: its Parquet features, its manifest, loading it (folder, sources or Hub), pushing it to the Hub."""
