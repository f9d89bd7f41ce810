# syntax=docker/dockerfile:1
#
# glmcp container image: a static binary on distroless.
#
#   docker build -t glmcp --build-arg VERSION=$(git describe --always --dirty) .
#   docker run --rm -p 127.0.0.1:8080:8080 -v glmcp-data:/data glmcp     # embedded store + demo data
#
# See docker-compose.yml for PostgreSQL.

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
      -o /out/glmcp ./cmd/glmcp \
 && mkdir -p /out/data /out/repositories

# distroless/static: no shell, no package manager, runs as uid 65532.
# There is no curl in it: the health check is `glmcp healthcheck`.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/glmcp /usr/local/bin/glmcp
# The embedded store's data directory (unused with GLMCP_DATABASE_URL).
COPY --from=build --chown=65532:65532 /out/data /data
# The projects' git repositories when GLMCP_REPOSITORIES_PATH=/repositories
# (docker-compose.yml); a fresh named volume copies this owner.
COPY --from=build --chown=65532:65532 /out/repositories /repositories
ENV GLMCP_LISTEN=0.0.0.0:8080 \
    GLMCP_DATA_DIR=/data \
    GLMCP_LOG_FORMAT=json
VOLUME ["/data", "/repositories"]
EXPOSE 8080
USER nonroot:nonroot
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
  CMD ["/usr/local/bin/glmcp", "healthcheck", "--url", "http://127.0.0.1:8080/-/readiness"]
ENTRYPOINT ["/usr/local/bin/glmcp"]
CMD ["serve"]
