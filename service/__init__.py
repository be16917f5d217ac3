"""bestmove: a stateless JSON API that answers the best move of tic-tac-toe and its family,
exactly from solved tables up to 4x4 and by a search within a budget up to 15x15.

Three layers, each a package, imports running one way: `ops` -> `api` -> `game`.

- `service.game`: the rules, the solved tables, the search and the engine; the standard
  library and NumPy.
- `service.api`: the HTTP edge; `service.api.app.create_app` is the application factory.
- `service.ops`: the process around it: settings, gunicorn, logs, metrics, health probe;
  `service.ops.composition.create_service` is the whole service as the server runs it.
"""
