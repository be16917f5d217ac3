"""bestmove: a stateless JSON API that answers the best tic-tac-toe move.

Three layers, each a package, imports running one way: `ops` -> `api` -> `game`.

- `service.game`: the rules and the solvers; the standard library only.
- `service.api`: the HTTP edge; `service.api.create_app` is the application factory.
- `service.ops`: the process around it: settings, gunicorn, logs, metrics, health probe.
"""
