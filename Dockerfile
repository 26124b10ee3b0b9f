# syntax=docker/dockerfile:1
# Atelier's image: one image for every role (`atelier serve --role api|worker|deliverer|all`, compose.yaml).
# Build:  docker build -t atelier .        (podman: podman build -t atelier .; see docs/deploy.md)

# ---- build: dependencies with their install scripts, then the compiled build (scripts/build.mjs) ----
FROM docker.io/library/node:20-bookworm-slim AS build
WORKDIR /app
# Every native add-on the project uses ships a prebuilt binary (package.json's allowScripts keeps
# node-llama-cpp, sharp and onnxruntime from compiling), so no compiler is installed.
# Only what `npm ci` reads, so the dependency layer is reused until package-lock.json changes.
COPY package.json package-lock.json ./
COPY scripts/build.mjs scripts/build-editor.mjs scripts/
COPY src/engines/local/llm/no-gpu-prebuilt src/engines/local/llm/no-gpu-prebuilt
# Behind a TLS-inspecting proxy, pass its CA bundle as a build secret: --secret id=ca,src=/path/to/ca.pem
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=ca,required=false \
    if [ -f /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi; npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: Node.js, the Debian packages the local engines run, the compiled tree ----
FROM docker.io/library/node:20-bookworm-slim
# The README's list (Local models): without a package its models are listed as unavailable, nothing fails.
ARG ENGINE_PACKAGES="ffmpeg flite festival festvox-us-slt-hts pocketsphinx pocketsphinx-en-us tesseract-ocr tesseract-ocr-eng poppler-utils fluidsynth fluid-soundfont-gm"
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl $ENGINE_PACKAGES \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 atelier && useradd --system --uid 10001 --gid atelier --home-dir /app atelier \
    && mkdir -p /data && chown atelier:atelier /data
WORKDIR /app
COPY --from=build --chown=atelier:atelier /app /app
USER atelier
ENV NODE_ENV=production DATA_DIR=/data HOST=0.0.0.0 PORT=8080
VOLUME ["/data"]
EXPOSE 8080
# /readyz answers 503 while the process drains, so an orchestrator stops sending traffic before the stop.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD curl -fsS "http://127.0.0.1:${PORT}/readyz" >/dev/null || exit 1
# node is PID 1 and handles SIGTERM itself (src/cli/commands/serve.ts): it drains, hands running work
# back to the queue and exits 0 within ATELIER_SHUTDOWN_GRACE_MS. No npm in between, which would not
# forward the signal.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "bin/atelier.mjs"]
CMD ["serve"]
