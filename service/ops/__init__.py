"""The process around the app: settings, the gunicorn server, draining, logs, metrics, health."""
