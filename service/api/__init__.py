"""The HTTP edge: the app factory, views, schemas, the problem envelope, the page, the contract."""
