/* SPDX-License-Identifier: MIT */
/*
 * options.c - the option table, one row per option, sorted by name (the tests
 * check it), and the few helpers that only one row uses. A new option is one
 * row here plus a field in struct conf; its type (types.c, types_http.c,
 * listen.c) does the parsing, printing and releasing. Defaults are strings in
 * the syntax a user writes, parsed by the row's own type.
 */
#include "access_checks.h"
#include "acme_checks.h"
#include "internal.h"
#include "syntax/acme_names.h"
#include "syntax/log_template.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int check_index_name(const char *item, char *err)
{
    if (strchr(item, '/') || strcmp(item, ".") == 0 ||
        strcmp(item, "..") == 0) {
        snprintf(err, ERR_MAX,
                 "'%.64s' is not a file name (no '/', '.' or '..')", item);
        return -EINVAL;
    }
    return 0;
}

static const char *online_cpus(char *buf, size_t n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    if (cpus < 1)
        cpus = 1;
    if (cpus > 1024)
        cpus = 1024;
    snprintf(buf, n, "%ld", cpus);
    return buf;
}

static const char *const dotfiles_names[] = {
    [CONF_DOTFILES_DENY] = "deny", [CONF_DOTFILES_ALLOW] = "allow", NULL};
static const char *const etag_names[] = {[CONF_ETAG_CONTENT] = "content",
                                         [CONF_ETAG_MTIME] = "mtime",
                                         [CONF_ETAG_OFF] = "off",
                                         NULL};
static const char *const sandbox_names[] = {[CONF_SANDBOX_ON] = "on",
                                            [CONF_SANDBOX_OFF] = "off",
                                            [CONF_SANDBOX_STRICT] = "strict",
                                            NULL};
/* --log-format: a named format or a template (syntax/log_template.c) */
static int check_log_format(const char *item, char *err)
{
    struct log_template t;

    return log_template_parse(item, &t, err, ERR_MAX);
}

/* --metrics-listen: a numeric IPv4 HOST:PORT or [IPv6]:PORT. */
static int check_metrics_listen(const char *item, char *err)
{
    const char *colon = strrchr(item, ':');
    char host[64];
    unsigned char addr[16];
    char *end;
    size_t n;

    if (!colon || colon == item)
        goto bad;
    errno = 0;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (!colon[1] || *end || errno || port > 65535)
        goto bad;
    n = (size_t)(colon - item);
    if (item[0] == '[') {
        if (n < 3 || item[n - 1] != ']' || n - 2 >= sizeof host)
            goto bad;
        memcpy(host, item + 1, n - 2);
        host[n - 2] = '\0';
        if (inet_pton(AF_INET6, host, addr) == 1)
            return 0;
    } else if (n < sizeof host) {
        memcpy(host, item, n);
        host[n] = '\0';
        if (inet_pton(AF_INET, host, addr) == 1)
            return 0;
    }
bad:
    snprintf(err, ERR_MAX,
             "'%.64s' is not HOST:PORT with a numeric address (127.0.0.1:9100, "
             "[::1]:9100)",
             item);
    return -EINVAL;
}

#define OFF(f) offsetof(struct conf, f)

const struct opt opts[] = {
    {.name = "access-log",
     .type = &t_path,
     .off = OFF(access_log),
     .dflt = "-",
     .metavar = "PATH|-|off",
     .help = "access log file; - is standard output, off disables it"},
    {.name = "acme",
     .type = &t_items,
     .off = OFF(acme),
     .metavar = "DOMAIN[,DOMAIN...]",
     .dflt_help = "none",
     .help = "get and renew a certificate for these names from an ACME CA "
             "(one certificate, the names as its SANs; docs/acme.md); "
             "repeatable, a certificate each (in BENEATH_ACME: separated by "
             "spaces)",
     .check = conf_check_acme,
     .flags = OPT_REPEAT | OPT_ENV_SPLIT},
    {.name = "acme-ca",
     .type = &t_string,
     .off = OFF(acme_ca),
     .dflt = ACME_CA_LETSENCRYPT,
     .metavar = "URL",
     .help = "the ACME CA's directory URL; letsencrypt-staging is Let's "
             "Encrypt's staging CA (try it first), letsencrypt its production "
             "one",
     .check = conf_check_acme_ca},
    {.name = "acme-ca-root",
     .type = &t_path,
     .off = OFF(acme_ca_root),
     .metavar = "FILE",
     .dflt_help = "the system's trust store",
     .help = "PEM certificate(s) trusted for the ACME CA's own HTTPS (a "
             "private CA, or Pebble)"},
    {.name = "acme-challenge",
     .type = &t_string,
     .off = OFF(acme_challenge),
     .metavar = "http-01|tls-alpn-01",
     .dflt_help = "tls-alpn-01 when a listener is on port 443, else http-01",
     .help = "how the CA checks that the names are ours: http-01 (a request "
             "to port 80) or tls-alpn-01 (a TLS handshake on port 443)",
     .check = conf_check_acme_challenge},
    {.name = "acme-dir",
     .type = &t_path,
     .off = OFF(acme_dir),
     .dflt = "/var/lib/beneath/acme",
     .metavar = "DIR",
     .help = "where the ACME account, keys, certificates and their state are "
             "kept (0700, keys 0600); replicas may share it",
     .check = conf_check_absolute},
    {.name = "acme-email",
     .type = &t_string,
     .off = OFF(acme_email),
     .metavar = "ADDR",
     .dflt_help = "none",
     .help = "contact address of the ACME account (the CA's expiry notices)",
     .check = conf_check_acme_email},
    {.name = "acme-on-demand",
     .type = &t_bool,
     .off = OFF(acme_on_demand),
     .dflt = "off",
     .help = "get a certificate from the ACME CA for a name at the first TLS "
             "handshake that asks for it, when --sites has a directory of "
             "that name (rate-limited per name and in all)"},
    {.name = "allow",
     .type = &t_items,
     .off = OFF(allow),
     .metavar = "CIDR[,CIDR...]",
     .dflt_help = "everyone",
     .help = "accept connections only from these IPv4/IPv6 networks "
             "(checked at accept; via --trusted-proxy, per request); "
             "repeatable",
     .check = conf_check_cidrs,
     .flags = OPT_REPEAT},
    {.name = "auth",
     .type = &t_items,
     .off = OFF(auth),
     .metavar = "GLOBS=HTPASSWD",
     .dflt_help = "none",
     .help = "require HTTP Basic authentication for paths matching a comma "
             "list of globs (\"/**\" for the whole site) from the users of "
             "an htpasswd file (bcrypt, SHA-512-crypt or yescrypt); first "
             "match wins; the file is re-read on SIGHUP; repeatable (in "
             "BENEATH_AUTH: separated by spaces)",
     .check = conf_check_auth,
     .flags = OPT_REPEAT | OPT_ENV_SPLIT},
    {.name = "auth-realm",
     .type = &t_string,
     .off = OFF(auth_realm),
     .dflt = "beneath",
     .metavar = "TEXT",
     .help = "the realm of the Basic authentication challenge",
     .check = conf_check_realm},
    {.name = "cache",
     .type = &t_cache,
     .off = OFF(cache),
     .metavar = "GLOBS=VALUE",
     .dflt_help = "none",
     .help = "Cache-Control VALUE for paths matching a comma list of globs "
             "(\"*.css,*.js=max-age=31536000, immutable\", \"assets/**=...\"); "
             "first match wins; repeatable",
     .flags = OPT_REPEAT},
    {.name = "cache-default",
     .type = &t_cache_default,
     .off = OFF(cache),
     .metavar = "VALUE",
     .dflt_help = "none",
     .help = "Cache-Control for files no --cache rule matches"},
    {.name = "check",
     .type = &t_action,
     .off = OFF(check),
     .help = "validate the configuration, print the effective one, exit",
     .flags = OPT_CLI_ONLY},
    {.name = "compress",
     .type = &t_encodings,
     .off = OFF(compress),
     .dflt = "gzip",
     .metavar = "zstd,br,gzip|off",
     .help = "compress compressible types of 1 KiB to 16 MiB on the fly for "
             "clients accepting these codings, in this order of preference; "
             "a sidecar (--precompressed) wins; gzip by default, the one "
             "every client decodes; zst and gz are accepted for zstd and "
             "gzip (docs/compression.md)"},
    {.name = "compress-cache",
     .type = &t_size,
     .off = OFF(compress_cache),
     .dflt = "16M",
     .min = 65536,
     .max = 1ull << 32,
     .help = "bytes of compressed bodies kept in memory (least recently used "
             "go first; K/M/G suffix allowed)"},
    {.name = "config",
     .type = &t_path,
     .off = OFF(config),
     .metavar = "FILE",
     .help = "read options from this key = value file",
     .flags = OPT_NO_FILE},
    {.name = "confine",
     .type = &t_confine,
     .off = OFF(confine),
     .dflt = "beneath,no-magiclinks",
     .help = "resolver flags: beneath, in-root, no-xdev, no-symlinks, "
             "no-magiclinks, no-jumps (beneath excludes in-root; none: "
             "unconfined)"},
    {.name = "cors",
     .type = &t_cors,
     .off = OFF(cors),
     .metavar = "ORIGINS|*",
     .dflt_help = "none",
     .help = "let scripts of these origins (a comma list of "
             "http[s]://HOST[:PORT], or * for any) read the responses: "
             "Access-Control-Allow-Origin, Vary: Origin for a list, and the "
             "preflight OPTIONS answered (GET, HEAD; the headers asked "
             "for; Access-Control-Max-Age " ORIGINS_MAX_AGE ")"},
    {.name = "default-type",
     .type = &t_string,
     .off = OFF(default_type),
     .dflt = MIME_DEFAULT_TYPE,
     .metavar = "TYPE",
     .help = "Content-Type of files whose extension no table knows (README, "
             "copyright; nginx's default_type), e.g. text/plain, which "
             "browsers show instead of downloading; read at start-up",
     .check = conf_check_default_type},
    {.name = "deny",
     .type = &t_items,
     .off = OFF(deny),
     .metavar = "CIDR[,CIDR...]",
     .dflt_help = "none",
     .help = "refuse connections from these networks (wins over --allow); "
             "repeatable",
     .check = conf_check_cidrs,
     .flags = OPT_REPEAT},
    {.name = "dotfiles",
     .type = &t_enum,
     .off = OFF(dotfiles),
     .dflt = "deny",
     .names = dotfiles_names,
     .help = "serve names starting with '.' (/.well-known/ is always "
             "allowed)"},
    {.name = "drain-timeout",
     .type = &t_seconds,
     .off = OFF(drain_timeout),
     .dflt = "300",
     .min = 0,
     .max = 86400,
     .help = "seconds an older generation may take to finish its "
             "connections after a SIGHUP started a new one; then they are "
             "closed"},
    {.name = "error-page",
     .type = &t_items,
     .off = OFF(error_page),
     .metavar = "CODES=FILE",
     .dflt_help = "/404.html for 404",
     .help = "send FILE (under the root) as the body of these error "
             "statuses, e.g. 403,404=/errors/4xx.html; repeatable (in "
             "BENEATH_ERROR_PAGE: separated by spaces)",
     .check = conf_check_error_page,
     .flags = OPT_REPEAT | OPT_ENV_SPLIT},
    {.name = "etag",
     .type = &t_enum,
     .off = OFF(etag),
     .dflt = "content",
     .names = etag_names,
     .help = "ETag of files: content (SHA-256 of the bytes, the same on "
             "every replica), mtime (\"mtime-size\", cheap) or off"},
    {.name = "fallback",
     .type = &t_root_file,
     .off = OFF(fallback),
     .metavar = "FILE",
     .dflt_help = "none",
     .help = "file under the root served with 200 to GET/HEAD requests that "
             "would be 404 (single-page apps)"},
    {.name = "follow-into",
     .type = &t_items,
     .off = OFF(follow_into),
     .metavar = "DIR",
     .dflt_help = "none",
     .help = "follow a symlink that leaves the root when its target lies in "
             "DIR, and resolve the rest beneath DIR's own fd with --confine "
             "(Debian's documentation: /usr/share/javascript; "
             "docs/docs-hosting.md); a link to anywhere else stays refused; "
             "needs beneath in --confine; opened at start-up; repeatable (in "
             "BENEATH_FOLLOW_INTO: separated by spaces)",
     .check = conf_check_follow_into,
     .flags = OPT_REPEAT | OPT_ENV_SPLIT},
    {.name = "header",
     .type = &t_headers,
     .off = OFF(headers),
     .metavar = "\"NAME: VALUE\"",
     .dflt_help = "none",
     .help = "add this header to every response; repeatable",
     .flags = OPT_REPEAT},
    {.name = "header-timeout",
     .type = &t_seconds,
     .off = OFF(header_timeout),
     .dflt = "10",
     .min = 1,
     .max = 3600,
     .help = "seconds a client has to send a request's headers (s/m/h "
             "suffix allowed)"},
    {.name = "headers-file",
     .type = &t_path,
     .off = OFF(headers_file),
     .metavar = "FILE",
     .dflt_help = "none",
     .help = "response headers by path, in the _headers syntax of Netlify "
             "and Cloudflare Pages; re-read on SIGHUP"},
    {.name = "health",
     .type = &t_urlpath,
     .off = OFF(health),
     .metavar = "URLPATH",
     .dflt_help = "off",
     .help = "answer GET/HEAD of this path with 200 \"ok\" (e.g. /healthz)"},
    {.name = "help",
     .short_name = 'h',
     .type = &t_action,
     .off = OFF(help),
     .help = "show this help and exit",
     .flags = OPT_CLI_ONLY},
    {.name = "hsts",
     .type = &t_seconds,
     .off = OFF(hsts),
     .dflt = "0",
     .min = 0,
     .max = 63072000,
     .help = "add Strict-Transport-Security with this max-age to HTTPS "
             "responses; 0: none"},
    {.name = "http2",
     .type = &t_bool,
     .off = OFF(http2),
     .dflt = "on",
     .help = "HTTP/2 on https:// listeners (ALPN h2) and by prior knowledge "
             "on plain ones; off: HTTP/1.1 only"},
    {.name = "https-redirect",
     .type = &t_switch,
     .off = OFF(https_redirect),
     .dflt = "auto",
     .help = "answer plain-HTTP requests with a 308 to the same URL on "
             "https:// (the https:// listener's port, the Host's name); "
             "/.well-known/acme-challenge/ and --health still answer over "
             "HTTP; alone: on; auto: on with --acme and an https:// "
             "listener"},
    {.name = "https-redirect-port",
     .type = &t_uint,
     .off = OFF(https_redirect_port),
     .metavar = "PORT",
     .dflt = "0",
     .min = 0,
     .max = 65535,
     .help = "the port --https-redirect sends clients to, where they reach "
             "the https:// listener from outside (a container's published "
             "port, a Kubernetes Service's); 443 is left out of the URL; 0: "
             "the first https:// listener's port"},
    {.name = "index",
     .type = &t_list,
     .off = OFF(index),
     .dflt = "index.html",
     .metavar = "NAMES",
     .help = "comma list of index file names tried in a directory",
     .check = check_index_name},
    {.name = "listen",
     .type = &t_listen,
     .off = OFF(listen),
     .dflt = "127.0.0.1:8080",
     .help = "HOST:PORT, [V6]:PORT, PORT (on 127.0.0.1), http://HOST:PORT, "
             "https://HOST:PORT or unix:PATH; port 0 picks a free port; "
             "repeatable (in BENEATH_LISTEN: separated by spaces)",
     .flags = OPT_REPEAT | OPT_ENV_SPLIT},
    {.name = "listing",
     .type = &t_bool,
     .off = OFF(listing),
     .dflt = "off",
     .help = "list directories that have no index file"},
    {.name = "log-format",
     .type = &t_string,
     .off = OFF(log_format),
     .dflt = "combined",
     .metavar = "combined|combined+duration|json|TEMPLATE",
     .help = "access log format: combined, combined+duration (adds "
             "duration_us=N), json (one object a line), or a template of "
             "$fields such as '$time $client \"$request\" $status $bytes "
             "$duration_us' (fields in docs/observe.md)",
     .check = check_log_format},
    {.name = "max-connections",
     .type = &t_uint,
     .off = OFF(max_connections),
     .dflt = "1024",
     .min = 1,
     .max = 1000000,
     .help = "connections open at once, in total"},
    {.name = "max-connections-per-ip",
     .type = &t_uint,
     .off = OFF(max_connections_per_ip),
     .dflt = "64",
     .min = 0,
     .max = 1000000,
     .help = "connections open at once from one client address; 0: no limit"},
    {.name = "max-header-size",
     .type = &t_size,
     .off = OFF(max_header_size),
     .dflt = "8K",
     .min = 4096,
     .max = 1 << 20,
     .help = "bytes of request line and headers (K/M suffix allowed)"},
    {.name = "metrics",
     .type = &t_urlpath,
     .off = OFF(metrics),
     .metavar = "URLPATH",
     .dflt_help = "off",
     .help = "serve Prometheus metrics at this path (e.g. /metrics)"},
    {.name = "metrics-listen",
     .type = &t_string,
     .off = OFF(metrics_listen),
     .metavar = "HOST:PORT",
     .dflt_help = "off",
     .help = "serve the Prometheus metrics at /metrics on a listener of "
             "their own (plain HTTP, only that path; e.g. 127.0.0.1:9100, "
             "[::1]:9100; port 0 picks one), so they need not be public",
     .check = check_metrics_listen},
    {.name = "mime",
     .type = &t_items,
     .off = OFF(mime),
     .metavar = "EXT=TYPE",
     .dflt_help = "none",
     .help = "Content-Type of files ending in .EXT (\"vtt=text/vtt\", "
             "\"txt=text/plain; charset=iso-8859-1\"); wins over --mime-types "
             "and the built-in table; read at start-up; repeatable",
     .check = conf_check_mime,
     .flags = OPT_REPEAT},
    {.name = "mime-types",
     .type = &t_path,
     .off = OFF(mime_types),
     .dflt = CONF_MIME_TYPES,
     .metavar = "FILE|off",
     .help = "media types by extension in the mime.types format, over the "
             "built-in table; the default is read when present (Debian's "
             "media-types package); off: the built-in table alone; read at "
             "start-up"},
    {.name = "mount",
     .type = &t_items,
     .off = OFF(mount),
     .metavar = "/URL/PREFIX=DIR",
     .dflt_help = "none",
     .help = "serve the paths at and below /URL/PREFIX from DIR, resolved "
             "beneath DIR's own fd with --confine (nginx's alias; the longest "
             "prefix wins; DIR may be a file, which answers that one URL), "
             "for what a symlink out of the root would reach, which stays "
             "refused (docs/docs-hosting.md); reopened on SIGHUP; repeatable "
             "(in BENEATH_MOUNT: separated by spaces)",
     .check = conf_check_mount,
     .flags = OPT_REPEAT | OPT_ENV_SPLIT},
    {.name = "port",
     .short_name = 'p',
     .type = &t_port,
     .off = OFF(listen),
     .help = "listen on 127.0.0.1:PORT, the same as --listen PORT; a lone "
             "number where ROOT goes means --port too (for all interfaces: "
             "--listen 0.0.0.0:PORT)",
     .same_list = "listen",
     .flags = OPT_REPEAT},
    {.name = "precompressed",
     .type = &t_encodings,
     .off = OFF(precompressed),
     .dflt = "off",
     .metavar = "br,zstd,gzip|off",
     .help = "serve FILE.br, FILE.zst, FILE.gz to clients accepting br, zstd, "
             "gzip, in this order of preference (compressible types only; "
             "zst and gz are accepted for zstd and gzip)"},
    {.name = "probe",
     .type = &t_string,
     .off = OFF(probe),
     .metavar = "URL",
     .help = "health check instead of serving: GET URL "
             "(http://127.0.0.1:8080/healthz, https://..., unix:SOCKET), "
             "print one line, exit 0 on a 2xx or 3xx answer within 5 s, "
             "else 1; reads no config file or environment",
     .flags = OPT_CLI_ONLY},
    {.name = "redirects",
     .type = &t_path,
     .off = OFF(redirects),
     .metavar = "FILE",
     .dflt_help = "none",
     .help = "redirect and rewrite rules in the _redirects syntax of Netlify "
             "and Cloudflare Pages; re-read on SIGHUP"},
    {.name = "resolver",
     .type = &t_backend,
     .off = OFF(resolver),
     .dflt = "auto",
     .metavar = "auto|kernel|emulated|lexical",
     .help = "how paths are resolved: auto (kernel, else emulated), kernel "
             "(openat2), emulated (userspace walk), lexical (UNSAFE, "
             "benchmarks only)"},
    {.name = "resolver-cache",
     .type = &t_uint,
     .off = OFF(resolver_cache),
     .dflt = "1024",
     .min = 0,
     .max = 65536,
     .help = "directories the emulated resolver keeps open per server "
             "thread, checked against the kernel's change events on every "
             "use (one fd each); 0: walk every directory every time"},
    {.name = "root",
     .type = &t_path,
     .off = OFF(root),
     .metavar = "DIR",
     .dflt_help = "the current directory; none with --vhost or --sites",
     .help = "document root; also the positional ROOT"},
    {.name = "sandbox",
     .type = &t_enum,
     .off = OFF(sandbox),
     .dflt = "on",
     .names = sandbox_names,
     .help = "confine the process once it serves: Landlock (read beneath the "
             "root, write the access log, bind the listening ports) and a "
             "seccomp allow-list; on: what the kernel supports, refused calls "
             "fail with EPERM; strict: both required, a refused call kills; "
             "off: neither"},
    {.name = "security-headers",
     .type = &t_bool,
     .off = OFF(security_headers),
     .dflt = "off",
     .help = "add X-Content-Type-Options, Referrer-Policy, X-Frame-Options and "
             "CSP frame-ancestors"},
    {.name = "server-timing",
     .type = &t_bool,
     .off = OFF(server_timing),
     .dflt = "off",
     .help = "add Server-Timing: resolve;dur=MS (the resolver's time)"},
    {.name = "shutdown-timeout",
     .type = &t_seconds,
     .off = OFF(shutdown_timeout),
     .dflt = "10",
     .min = 0,
     .max = 3600,
     .help = "seconds to finish requests in flight on SIGTERM/SIGINT"},
    {.name = "site-files",
     .type = &t_bool,
     .off = OFF(site_files),
     .dflt = "off",
     .help = "also read /_redirects and /_headers from each site's root "
             "(through the resolver; never served)"},
    {.name = "sites",
     .type = &t_path,
     .off = OFF(sites),
     .metavar = "DIR",
     .dflt_help = "none",
     .help = "serve each Host from the directory DIR/HOST (lower case, no "
             "port, no trailing dot), opened beneath DIR, the path resolved "
             "beneath that site's own directory with --confine; a site "
             "created, renamed or removed is seen by the next request "
             "(docs/sites.md); other Hosts get --root, or 421 without one"},
    {.name = "sites-cache",
     .type = &t_uint,
     .off = OFF(sites_cache),
     .dflt = "1024",
     .min = 1,
     .max = 1048576,
     .help = "site directories kept open with their _redirects and _headers "
             "(--sites; one fd each), the least recently used let go"},
    {.name = "state-dir",
     .type = &t_path,
     .off = OFF(state_dir),
     .metavar = "DIR|off",
     .dflt_help = "$STATE_DIRECTORY (systemd's StateDirectory=), else "
                  "$XDG_STATE_HOME/beneath, else ~/.local/state/beneath",
     .help = "where what beneath makes for itself is kept across starts: "
             "the --tls-self-signed certificate and key (DIR/"
             "tls-self-signed/, key 0600); off: nothing is kept"},
    {.name = "threads",
     .type = &t_uint,
     .off = OFF(threads),
     .dflt_fn = online_cpus,
     .dflt_help = "number of CPUs",
     .min = 1,
     .max = 1024,
     .help = "worker threads"},
    {.name = "timeout",
     .type = &t_seconds,
     .off = OFF(timeout),
     .dflt = "30",
     .min = 1,
     .max = 86400,
     .help = "seconds of inactivity before a connection is closed"},
    {.name = "tls-cert",
     .type = &t_items,
     .off = OFF(tls_cert),
     .metavar = "[NAME=]FILE",
     .dflt_help = "none",
     .help = "PEM certificate chain (leaf first) for https:// listeners; "
             "NAME=FILE: for the --vhost NAME only (chosen by SNI), FILE: "
             "for every other name; repeatable",
     .check = conf_check_tls_item,
     .flags = OPT_REPEAT},
    {.name = "tls-ciphers",
     .type = &t_string,
     .off = OFF(tls_ciphers),
     .metavar = "STRING",
     .dflt_help = "Mozilla intermediate: ECDHE/DHE with AES-GCM or "
                  "ChaCha20-Poly1305",
     .help = "OpenSSL cipher list of https:// listeners for TLS 1.2, "
             "replacing the default (TLS 1.3 suites are all AEAD and fixed)"},
    {.name = "tls-key",
     .type = &t_items,
     .off = OFF(tls_key),
     .metavar = "[NAME=]FILE",
     .dflt_help = "none",
     .help = "PEM private key of the --tls-cert of the same NAME (or of the "
             "one without); repeatable",
     .check = conf_check_tls_item,
     .flags = OPT_REPEAT},
    {.name = "tls-key-password-file",
     .type = &t_items,
     .off = OFF(tls_key_password_file),
     .metavar = "[NAME=]FILE",
     .dflt_help = "none",
     .help = "file whose first line decrypts the encrypted --tls-key of the "
             "same NAME (or the one without); repeatable",
     .check = conf_check_tls_item,
     .flags = OPT_REPEAT},
    {.name = "tls-self-signed",
     .type = &t_bool,
     .off = OFF(tls_self_signed),
     .dflt = "off",
     .help = "make a self-signed certificate for localhost, 127.0.0.1 and "
             "::1 (local work), kept in --state-dir and used again at each "
             "start until its last 7 days, so a browser told to trust it "
             "once is not asked again"},
    {.name = "trusted-proxy",
     .type = &t_items,
     .off = OFF(trusted_proxy),
     .metavar = "CIDR[,CIDR...][=forwarded|x-forwarded-for]",
     .dflt_help = "none",
     .help = "from these peers only, the client address is taken from the "
             "header these proxies append to (X-Forwarded-For unless "
             "=forwarded; the other one is never read), rightmost untrusted "
             "hop, for logs and --allow/--deny; repeatable",
     .check = conf_check_trusted_proxy,
     .flags = OPT_REPEAT},
    {.name = "try-html",
     .type = &t_bool,
     .off = OFF(try_html),
     .dflt = "off",
     .help = "serve /guide from guide.html when guide does not exist"},
    {.name = "user",
     .type = &t_string,
     .off = OFF(user),
     .metavar = "NAME",
     .dflt_help = "none",
     .help = "when started as root, switch to this user after binding"},
    {.name = "version",
     .short_name = 'V',
     .type = &t_action,
     .off = OFF(version),
     .help = "show the version and exit",
     .flags = OPT_CLI_ONLY},
    {.name = "vhost",
     .type = &t_items,
     .off = OFF(vhost),
     .metavar = "NAME=ROOT",
     .dflt_help = "none",
     .help = "serve requests whose Host is NAME (exact or *.SUFFIX) from "
             "ROOT; others from --root, or 421 without one; repeatable (in "
             "BENEATH_VHOST: separated by spaces)",
     .check = conf_check_vhost,
     .flags = OPT_REPEAT | OPT_ENV_SPLIT},
};

const size_t n_opts = N_ELEMS(opts);

_Static_assert(N_ELEMS(opts) <= OPTS_MAX, "raise OPTS_MAX");
