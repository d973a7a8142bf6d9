"""The auditor and regulator console: server-rendered pages mounted at ``/console``.

Pages are Jinja2 templates with autoescaping on (every source text, claim text and metadata
value is untrusted), one stylesheet and one small script served from this package, no CDN.
A reader signs in with an API key holding ``audit:read``, exchanged for a session cookie
(:mod:`api.console.sessions`, :mod:`api.console.guard`). The console is its own ASGI app
mounted on the API, so its errors render as pages for a browser and as problem+json for
everyone else, and it stays out of the API's OpenAPI document.
"""
