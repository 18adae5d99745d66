"""How the benchmark is run and scored: the settings, the question text, the protocols and their scoring policies (the authors' ones in mhmmkg.official), efficiency figures."""
