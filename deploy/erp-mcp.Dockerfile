# The ERP MCP server (mcp_erp): streamable HTTP at /mcp, in front of the ERP's REST API.
# Build from the repository root:  docker build -f deploy/erp-mcp.Dockerfile -t erp-mcp .
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    DATA_DIR=/data ERP_MCP_HOST=0.0.0.0 ERP_MCP_PORT=8000
WORKDIR /app
COPY requirements.lock ./
# Only what this service imports, at the versions the whole project is tested with.
RUN pip install --no-cache-dir -c requirements.lock \
        fastmcp httpx tenacity pydantic-settings starlette uvicorn
COPY core/ core/
COPY mcp_erp/ mcp_erp/
RUN useradd --system --uid 10001 --home-dir /data app && mkdir -p /data && chown app /data
USER app
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s CMD python -c "import urllib.request,os; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('ERP_MCP_PORT','8000'), timeout=4)"
CMD ["python", "-m", "mcp_erp"]
