# The simulated supplier shops (sim/suppliers), for demos only: real deployments fetch the
# suppliers' own sites. Build from the repository root:
#   docker build -f deploy/sim-suppliers.Dockerfile -t sim-suppliers .
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    DATA_DIR=/data SIM_SUPPLIERS_HOST=0.0.0.0 SIM_SUPPLIERS_PORT=8300
WORKDIR /app
COPY requirements.lock ./
RUN pip install --no-cache-dir -c requirements.lock pydantic-settings starlette uvicorn
COPY core/ core/
COPY sim/ sim/
RUN useradd --system --uid 10001 --home-dir /data app && mkdir -p /data && chown app /data
USER app
EXPOSE 8300
HEALTHCHECK --interval=30s --timeout=5s CMD python -c "import urllib.request,os; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('SIM_SUPPLIERS_PORT','8300'), timeout=4)"
CMD ["python", "-m", "sim.suppliers"]
