# mailbridge as a sidecar: shares the app's network namespace (Kubernetes pod, or
# `network_mode: service:app` in Compose) so the app reaches IMAP/SMTP on 127.0.0.1.
# docs/container.md: Compose and Kubernetes examples, bind-mount ownership, `npm run image:test`.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 builds its native addon here
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
# build against this image's own Node headers: no prebuilt binary from github.com, no header
# download from nodejs.org (the build needs only the npm registry and Debian)
ENV npm_config_build_from_source=true \
    npm_config_nodedir=/usr/local
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
# the IMAP engine is a workspace package (packages/imap-core/README.md)
COPY packages ./packages
COPY src ./src
COPY bin ./bin
# the addon is all better-sqlite3 needs at run time: its compiler output and SQLite sources go
RUN npm ci --no-audit --no-fund && npm prune --omit=dev \
 && find node_modules/better-sqlite3/build -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} + \
 && find node_modules/better-sqlite3/build/Release -mindepth 1 -maxdepth 1 ! -name better_sqlite3.node -exec rm -rf {} + \
 && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src

FROM node:20-bookworm-slim
# MALLOC_ARENA_MAX, MALLOC_TRIM_THRESHOLD_: glibc's allocator settings of src/util/memory.ts
# (allocatorEnvironment): memory the describe workers freed goes back to the one arena
# MAILBRIDGE_OPS_HOST stays loopback: set it to 0.0.0.0 for a Prometheus outside the pod
ENV NODE_ENV=production \
    MAILBRIDGE_STATE_DIR=/var/lib/mailbridge \
    MAILBRIDGE_CONFIG=/etc/mailbridge/config.json \
    MALLOC_ARENA_MAX=1 \
    MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
# node_modules/@mailbridge/imap-core links here
COPY --from=build /app/packages ./packages
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY package.json ./
# uid 1000 (node) owns the state volume; a bind-mounted host directory must be owned by 1000 too
RUN mkdir -p /var/lib/mailbridge /etc/mailbridge && chown node:node /var/lib/mailbridge && chmod 700 /var/lib/mailbridge
USER node
# tokens, UID maps and the TLS pair live here: keep it on a volume so UIDs survive restarts
VOLUME ["/var/lib/mailbridge"]
EXPOSE 1143 1025 9925
# GET /healthz on the ops listener (ops.port, default 9925; with it off, the IMAP greeting)
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["node", "bin/mailbridge.js", "healthcheck"]
# --expose-gc: a full collection after a large sync brings the resting size back under 300 MB
# (src/util/memory.ts); V8 only allows the flag at start
ENTRYPOINT ["node", "--expose-gc", "bin/mailbridge.js"]
CMD ["start"]
