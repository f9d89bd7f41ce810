# glmcp container image: the static binary on Debian bookworm-slim with git.
#
#   docker compose build          # the image glmcp:dev (see docker-compose.yml)
#   docker run --rm -p 127.0.0.1:8080:8080 -v glmcp-data:/data glmcp:dev   # embedded store + demo data
#
# No `# syntax=` line: dockerd's own BuildKit frontend builds this file
# (cache mounts included), so a build needs no frontend image from a
# registry. `docker build` needs BuildKit (Docker 23+, or buildx); compose
# uses the engine's BuildKit itself. scripts/compose-test builds and runs
# it for real (doc/testing.md).

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION} AS build
WORKDIR /src
# Modules first, so source edits do not invalidate the download layer.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download
COPY . .
ARG VERSION=dev
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X gitlab.com/glmcp/glmcp/app.Version=${VERSION}" \
      -o /out/glmcp ./cmd/glmcp

# The runtime needs git (the repositories are run with the git command
# line) and CA certificates (OAuth JWKS over HTTPS): bookworm-slim is the
# smallest Debian base that has apt to install them; distroless/static
# cannot run git. The user is uid/gid 65532 like distroless's nonroot, so
# volumes made by earlier images keep working. doc/dependencies.md.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 65532 nonroot \
 && useradd --uid 65532 --gid 65532 --home-dir /home/nonroot --create-home --shell /usr/sbin/nologin nonroot \
 && install -d -o 65532 -g 65532 /data /repositories
COPY --from=build /out/glmcp /usr/local/bin/glmcp
# /data: the embedded store's data directory (unused with
# GLMCP_DATABASE_URL). /repositories: the projects' git repositories when
# GLMCP_REPOSITORIES_PATH=/repositories (docker-compose.yml); a fresh named
# volume copies their owner. No VOLUME: with PostgreSQL /data is unused, and
# a VOLUME line left an anonymous volume behind every container.
ENV GLMCP_LISTEN=0.0.0.0:8080 \
    GLMCP_DATA_DIR=/data \
    GLMCP_LOG_FORMAT=json
EXPOSE 8080
USER 65532:65532
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
  CMD ["/usr/local/bin/glmcp", "healthcheck", "--url", "http://127.0.0.1:8080/-/readiness"]
ENTRYPOINT ["/usr/local/bin/glmcp"]
CMD ["serve"]
