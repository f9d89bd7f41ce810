# Stand-in for postgres:16 (scripts/compose-test): Debian bookworm's
# PostgreSQL 15 behind an entrypoint that reads the official image's
# POSTGRES_* variables. ROOTFS is the mmdebstrap import.
ARG ROOTFS
FROM ${ROOTFS}
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data
RUN install -d -o postgres -g postgres -m 700 /var/lib/postgresql/data \
 && install -d -o postgres -g postgres -m 2775 /var/run/postgresql
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["postgres"]
ARG LABEL
ARG INPUTS
LABEL org.glmcp.standin="${LABEL}" org.glmcp.standin.inputs="${INPUTS}"
