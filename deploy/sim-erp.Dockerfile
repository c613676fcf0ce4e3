# The simulated ERP (sim/erp), for demos only: a real deployment points ERP_BASE_URL at the
# company's ERP. Build from the repository root:
#   docker build -f deploy/sim-erp.Dockerfile -t sim-erp .
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    DATA_DIR=/data SIM_ERP_HOST=0.0.0.0 SIM_ERP_PORT=8080
WORKDIR /app
COPY requirements.lock ./
# psycopg: the ERP on PostgreSQL (ERP_DATABASE_URL=postgresql+psycopg://...); SQLite by default.
RUN pip install --no-cache-dir -c requirements.lock \
        SQLAlchemy "psycopg[binary]" pydantic-settings starlette uvicorn
COPY core/ core/
COPY sim/ sim/
RUN useradd --system --uid 10001 --home-dir /data app && mkdir -p /data && chown app /data
USER app
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s CMD python -c "import urllib.request,os; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('SIM_ERP_PORT','8080'), timeout=4)"
CMD ["python", "-m", "sim.erp"]
