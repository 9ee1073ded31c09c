# syntax=docker/dockerfile:1
# Multi-stage: build with dev dependencies, run with production ones only, as a non-root user.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY migrations ./migrations
COPY seeds ./seeds
RUN npm run build

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/app/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY seeds ./seeds
RUN mkdir -p /app/data && chown -R node:node /app/data
USER node
# 9464: GET /metrics when run with METRICS_PORT=9464, and METRICS_HOST=0.0.0.0 for a scraper
# outside the container (it binds to the container's loopback otherwise).
EXPOSE 3000 9464
# Healthy = ready (GET /readyz: migrations applied, PostgreSQL reachable); GET /livez
# is the liveness probe for orchestrators that restart a process that stops answering.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# Migrate and seed (both idempotent), then serve.
CMD ["node", "dist/main.js", "--migrate", "--seed"]
