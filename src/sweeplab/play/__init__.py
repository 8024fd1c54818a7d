"""`sweeplab play`: the game in the browser (server, store, static page) and in the terminal."""
