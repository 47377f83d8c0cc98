/**
 * The browser bridge (issue 29): pairing (token as a secret, the extension folder with its pinned id
 * and pairing.json), the /browser socket's admission rules, and the operations the browser tools run
 * through the paired extension.
 */
import { timingSafeEqual } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { Emit } from '../../kernel/bus.js';
import type { Home } from '../../kernel/home.js';
import type { SecretStore } from '../secrets/types.js';
import { Bridge, CLOSE_ENGINE, CLOSE_ROTATED } from './bridge.js';
import { extensionIdOf, extensionKey, extensionSource, installExtension, mintToken, storedExtensionKey, writePairing } from './pairing.js';
import type { BridgeAnswer, BrowserStatus } from './types.js';

export const TOKEN_SECRET = 'browser.pairing-token';
/** The subprotocol the extension offers; the token rides as a second one (`token.<token>`), since a browser WebSocket cannot set headers. */
export const SUBPROTOCOL = 'engine-browser';

export interface BrowserServiceDeps {
  home: Home;
  secrets: SecretStore;
  emit: Emit;
  /** The extension's source folder (default: the package's). */
  source?: string;
}

export interface BrowserService {
  /** Installs the extension folder and writes pairing.json for the port the engine listens on. */
  start(port: number): Promise<void>;
  status(): Promise<BrowserStatus>;
  rotate(): Promise<BrowserStatus>;
  connected(): boolean;
  /** Why an upgrade on /browser is refused (after the loopback check), or undefined to accept. */
  admission(origin: string | undefined, protocols: string[]): string | undefined;
  accept(ws: WebSocket): void;
  /** One operation on the paired browser; throws 'not connected' without one. */
  call(op: string, args: Record<string, unknown>, options: { signal?: AbortSignal; timeoutMs: number }): Promise<BridgeAnswer>;
  close(): void;
}

export function createBrowserService(deps: BrowserServiceDeps): BrowserService {
  const bridge = new Bridge(deps.emit);
  const folder = deps.home.path('browser', 'extension');
  let port = 0;
  let token: string | undefined;
  let extensionId = '';
  let installed: Promise<void> | undefined;

  /**
   * The extension folder with its pinned key, and pairing.json once a token exists. Made at start
   * for a home that has paired before (the port may have changed, the extension been updated), else
   * on the first read of GET /api/browser: an engine nobody pairs never generates the key.
   */
  function install(known?: string): Promise<void> {
    return (installed ??= (async () => {
      const key = known ?? (await extensionKey(deps.home));
      extensionId = extensionIdOf(key);
      await installExtension(deps.home, deps.source ?? extensionSource(), folder, key);
      token ??= await deps.secrets.get(TOKEN_SECRET);
      if (token) await writePairing(deps.home, folder, { port, token });
    })().catch((err: unknown) => {
      installed = undefined; // the next read tries again
      throw err;
    }));
  }

  /**
   * The token, minted (and stored as a secret) on first read, and written beside the extension then:
   * an engine whose browser page nobody opened holds no browser credential at all.
   */
  async function currentToken(): Promise<string> {
    if (token) return token;
    token = await deps.secrets.get(TOKEN_SECRET);
    if (!token) {
      token = mintToken();
      await deps.secrets.set(TOKEN_SECRET, token);
      if (port) await writePairing(deps.home, folder, { port, token });
    }
    return token;
  }

  async function status(): Promise<BrowserStatus> {
    await install();
    const client = bridge.info();
    return {
      connected: bridge.connected(),
      token: await currentToken(),
      extensionPath: folder,
      extensionId,
      origin: `chrome-extension://${extensionId}`,
      ...(client ? { client } : {}),
    };
  }

  return {
    async start(listening) {
      port = listening;
      const key = await storedExtensionKey(deps.home);
      if (key) await install(key);
    },
    status,
    async rotate() {
      await install();
      token = mintToken();
      await deps.secrets.set(TOKEN_SECRET, token);
      await writePairing(deps.home, folder, { port, token });
      // The extension re-reads pairing.json when it is dropped and comes back with the new token.
      bridge.disconnect(CLOSE_ROTATED, 'the pairing token was rotated');
      return status();
    },
    connected: () => bridge.connected(),
    admission(origin, protocols) {
      if (origin !== `chrome-extension://${extensionId}`) {
        if (!origin) return 'forbidden: the browser bridge accepts only the engine\'s extension (no Origin was sent)';
        if (origin.startsWith('chrome-extension://')) return 'forbidden: the browser bridge accepts only the extension in the folder GET /api/browser names, not another extension';
        return 'forbidden: the browser bridge accepts only the engine\'s extension, not a web page';
      }
      if (!protocols.includes(SUBPROTOCOL)) return `forbidden: offer the "${SUBPROTOCOL}" subprotocol and the token`;
      const offered = protocols.find((p) => p.startsWith('token.'))?.slice('token.'.length);
      if (!offered || !token || !safeEqual(offered, token)) return 'forbidden: the pairing token is wrong or was rotated; the extension re-reads pairing.json and reconnects';
      return undefined;
    },
    accept: (ws) => bridge.attach(ws),
    call: (op, args, options) => bridge.request(op, args, options),
    close: () => bridge.disconnect(CLOSE_ENGINE, 'the engine is shutting down'),
  };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
