"""``mhmmkg report``: one self-contained HTML file with a leaderboard of runs and a per-query browser."""
