/**
 * The /browser socket: the paired browser extension's bridge (docs/browser.md). Admitted only from a
 * loopback peer, with an Origin of exactly the engine's extension and the current pairing token
 * (offered as the subprotocol `token.<token>` next to `engine-browser`). Each refusal is a 403 on the
 * upgrade naming what was wrong; one connection at a time, a newer one replaces the older.
 */
import type { IncomingMessage } from 'node:http';
import { WebSocketServer } from 'ws';
import type { BrowserService } from '../../capabilities/browser/service.js';
import { SUBPROTOCOL } from '../../capabilities/browser/service.js';
import { isLoopback } from '../guard.js';
import { refuse, type SocketHandler } from './upgrade.js';

export function browserSocket(browser: BrowserService): SocketHandler {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 32 * 1024 * 1024, handleProtocols: () => SUBPROTOCOL });
  return {
    path: '/browser',
    handle(req: IncomingMessage, socket, head) {
      if (!isLoopback(req.socket.remoteAddress)) return refuse(socket, 403, 'forbidden: the browser bridge needs a loopback peer');
      const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);
      const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
      const refusal = browser.admission(origin, protocols);
      if (refusal) return refuse(socket, 403, refusal);
      wss.handleUpgrade(req, socket, head, (ws) => browser.accept(ws));
    },
    close() {
      browser.close();
      wss.close();
    },
  };
}
