/**
 * The inside end of a network-on sandbox's way out (issue 22 §2). The sandbox's network namespace
 * has only its own loopback; the engine's egress proxy (egress-proxy.ts) listens on a unix socket
 * bound into the sandbox at SANDBOX_SOCKET. Programs speak to HTTP proxies over TCP, so a tiny
 * bridge inside listens on the namespace's own 127.0.0.1:EGRESS_PORT and copies each connection to
 * that socket, and the proxy variables in the command's environment point there. The bridge is the
 * engine's own node (the filesystem is visible read-only), run from source text: no file to ship,
 * no Debian package. This is what Claude Code's sandbox runtime and Codex do.
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
