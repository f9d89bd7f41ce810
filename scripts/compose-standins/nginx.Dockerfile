# Stand-in for nginx:1.27 (scripts/compose-test): Debian bookworm's
# nginx-light with the official image's layout: /etc/nginx/nginx.conf
# includes /etc/nginx/conf.d/*.conf (so a site mounted as
# conf.d/default.conf is the only one), the access log goes to stdout and
# the error log to stderr, and nginx runs in the foreground. ROOTFS is the
# mmdebstrap import.
ARG ROOTFS
FROM ${ROOTFS}
COPY nginx.conf /etc/nginx/nginx.conf
COPY nginx-default.conf /etc/nginx/conf.d/default.conf
RUN rm -f /etc/nginx/sites-enabled/* \
 && ln -sf /dev/stdout /var/log/nginx/access.log \
 && ln -sf /dev/stderr /var/log/nginx/error.log \
 && nginx -t
EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
ARG LABEL
ARG INPUTS
LABEL org.glmcp.standin="${LABEL}" org.glmcp.standin.inputs="${INPUTS}"
