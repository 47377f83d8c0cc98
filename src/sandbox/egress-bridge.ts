/**
 * The inside end of a network-on sandbox's way out (issue 22 §2). The sandbox's network namespace
 * has only its own loopback; the engine's egress proxy (egress-proxy.ts) listens on a unix socket
 * bound into the sandbox at SANDBOX_SOCKET. Programs speak to HTTP proxies over TCP, so a tiny
 * bridge inside listens on the namespace's own 127.0.0.1:EGRESS_PORT and copies each connection to
 * that socket, and the proxy variables in the command's environment point there (what Claude Code's
 * sandbox runtime does with socat, and Codex with its own helper).
 *
 * The bridge is socat when the machine has it (it starts in a few milliseconds, and every command
 * waits for the bridge to listen), else the engine's own node run from source text (always there,
 * visible read-only; no file to ship, no Debian package to require, but ~40 ms to start when the
 * machine is quiet and far more under load).
 */

/** Where the proxy's socket appears inside the sandbox (/run is an empty tmpfs there). */
export const SANDBOX_SOCKET = '/run/engine-egress.sock';
/** The bridge's port on the sandbox's own loopback: unusual, so a dev server rarely wants it. */
export const EGRESS_PORT = 39281;

/** `node -e BRIDGE_SOURCE <port> <socket>`: copies bytes both ways between each TCP connection and the socket. */
export const BRIDGE_SOURCE = `
const net = require('net');
const [port, sock] = process.argv.slice(1);
const server = net.createServer((c) => {
  const u = net.connect(sock);
  const end = () => { c.destroy(); u.destroy(); };
  c.on('error', end); u.on('error', end); c.on('close', end); u.on('close', end);
  c.pipe(u); u.pipe(c);
});
server.on('error', () => process.exit(1));
server.listen(Number(port), '127.0.0.1');
`;

/** `auto`: socat when present, else node; `node`: always node (tests of the fallback). */
export type BridgeKind = 'auto' | 'node';

/**
 * The keeper's lines that start the bridge (its arguments: node, BRIDGE_SOURCE, kind, then the
 * command) and wait until it listens, read from the namespace's /proc/net/tcp with builtins only;
 * and `own`, which counts the sandbox's own processes (bwrap's reaper, the keeper, the bridge and the
 * per-connection children socat forks) so they are never reported as left behind by the command.
 */
export function bridgeStart(): { prelude: string[]; own: string } {
  const listen = `0100007F:${EGRESS_PORT.toString(16).toUpperCase().padStart(4, '0')}`;
  const prelude = [
    'node="$1"; src="$2"; kind="$3"; shift 3',
    'if [ "$kind" = auto ] && command -v socat >/dev/null 2>&1; then',
    `  socat TCP-LISTEN:${EGRESS_PORT},bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:${SANDBOX_SOCKET} </dev/null >/dev/null 2>&1 3>&- &`,
    'else',
    `  NODE_OPTIONS= "$node" -e "$src" ${EGRESS_PORT} ${SANDBOX_SOCKET} </dev/null >/dev/null 2>&1 3>&- &`,
    'fi',
    'bridge=$!',
    `listening() { while read -r _ l _ st _; do [ "$l" = ${listen} ] && [ "$st" = 0A ] && return 0; done </proc/net/tcp; return 1; }`,
    'i=0',
    'until listening; do',
    '  if ! kill -0 "$bridge" 2>/dev/null || [ "$i" -ge 2000 ]; then echo "[sandbox: the network bridge did not start; connections through the proxy will fail]" >&2; break; fi',
    '  i=$((i + 1)); sleep 0.005',
    'done',
  ];
  const own = [
    'own() {',
    '  n=2; kill -0 "$bridge" 2>/dev/null || return 0; n=3',
    '  for s in /proc/[0-9]*/stat; do read -r _ _ _ pp _ 2>/dev/null <"$s" && [ "$pp" = "$bridge" ] && n=$((n + 1)); done; return 0',
    '}',
  ].join('\n');
  return { prelude, own };
}

const PROXY = `http://127.0.0.1:${EGRESS_PORT}`;
// The sandbox's own loopback is not the host's: servers a command starts for itself are reached directly.
const LOCAL = 'localhost,127.0.0.1,::1';

/** The environment that sends package managers, git and curl through the bridge. */
export function egressEnv(): Record<string, string> {
  return {
    HTTP_PROXY: PROXY,
    HTTPS_PROXY: PROXY,
    ALL_PROXY: PROXY,
    http_proxy: PROXY,
    https_proxy: PROXY,
    all_proxy: PROXY,
    NO_PROXY: LOCAL,
    no_proxy: LOCAL,
    npm_config_proxy: PROXY,
    npm_config_https_proxy: PROXY,
    npm_config_noproxy: LOCAL,
    YARN_HTTP_PROXY: PROXY,
    YARN_HTTPS_PROXY: PROXY,
    // Node 24+ honours the variables above in fetch and http only when asked.
    NODE_USE_ENV_PROXY: '1',
    // The home is read-only in the sandbox: npm's cache goes to the private /tmp, or no install works.
    npm_config_cache: '/tmp/.npm',
  };
}
