# Stand-in for redis:7 (scripts/compose-test): Debian bookworm's Redis 7.0
# behind an entrypoint that behaves as the official image's: redis-server
# as the redis user, data in /data, protected mode off unless a
# configuration file is given, logs on stdout. ROOTFS is the mmdebstrap
# import.
ARG ROOTFS
FROM ${ROOTFS}
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN install -d -o redis -g redis /data
VOLUME /data
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["redis-server"]
ARG LABEL
ARG INPUTS
LABEL org.glmcp.standin="${LABEL}" org.glmcp.standin.inputs="${INPUTS}"
