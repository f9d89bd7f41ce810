# Stand-in for golang:1.26 (scripts/compose-test): the machine's Go
# toolchain and the project's modules as a file GOPROXY, on the stand-in
# Debian. The build context holds go/ (a copy of GOROOT) and goproxy/.
ARG BASE=debian:bookworm-slim
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY go /usr/local/go
COPY goproxy /usr/local/share/glmcp-standin/goproxy
ENV GOPATH=/go \
    PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    GOTOOLCHAIN=local \
    GOPROXY=file:///usr/local/share/glmcp-standin/goproxy \
    GOSUMDB=off
WORKDIR /go
ARG LABEL
ARG INPUTS
LABEL org.glmcp.standin="${LABEL}" org.glmcp.standin.inputs="${INPUTS}"
