"""``/docs`` (Swagger UI) and ``/redoc`` (ReDoc) from assets shipped in the package, so the
interactive documentation works with no network (assets and licences: api/static/)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).parent / "static"
STATIC_PATH = "/static"


def install_docs_ui(app: FastAPI) -> None:
    """Serve the assets under ``/static`` and the two documentation pages."""
    app.mount(STATIC_PATH, StaticFiles(directory=STATIC_DIR), name="static")
    title = f"{app.title} API"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title=title,
            swagger_js_url=f"{STATIC_PATH}/swagger-ui/swagger-ui-bundle.js",
            swagger_css_url=f"{STATIC_PATH}/swagger-ui/swagger-ui.css",
            swagger_favicon_url=f"{STATIC_PATH}/swagger-ui/favicon-32x32.png",
            swagger_ui_parameters={"persistAuthorization": True},
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url="/openapi.json",
            title=title,
            redoc_js_url=f"{STATIC_PATH}/redoc/redoc.standalone.js",
            redoc_favicon_url=f"{STATIC_PATH}/swagger-ui/favicon-32x32.png",
            with_google_fonts=False,
        )
