# The chart gateway (viz_gateway): AntV-compatible chart tools over MCP at /mcp, images at
# /charts/. Build from the repository root:
#   docker build -f deploy/viz-gateway.Dockerfile -t viz-gateway .
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    DATA_DIR=/data VIZ_HOST=0.0.0.0 VIZ_PORT=1122
# CJK fonts: Chinese labels must not render as empty boxes (viz_gateway/fonts.py finds them).
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-wqy-microhei fonts-noto-cjk \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.lock ./
# boto3: images in an S3-compatible bucket (VIZ_STORE=s3), shared by every replica.
RUN pip install --no-cache-dir -c requirements.lock \
        fastmcp httpx jsonschema pydantic-settings starlette uvicorn \
        vl-convert-python pillow numpy boto3
COPY core/ core/
COPY viz_gateway/ viz_gateway/
RUN useradd --system --uid 10001 --home-dir /data app && mkdir -p /data && chown app /data
USER app
EXPOSE 1122
HEALTHCHECK --interval=30s --timeout=5s CMD python -c "import urllib.request,os; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('VIZ_PORT','1122'), timeout=4)"
CMD ["python", "-m", "viz_gateway"]
