/**
 * The /events socket: every event to every open socket, serialized once by the bus.
 * No filters, no replay (seed 000 §4.21). A client that falls behind by more than the buffer
 * bound is dropped, so a slow or dead client never stalls the engine or the other clients.
 */
import { WebSocket, WebSocketServer } from 'ws';
import type { Bus } from '../../kernel/bus.js';
import { LIMITS } from '../../kernel/limits.js';
import type { SocketHandler } from './upgrade.js';

export function eventsSocket(bus: Bus): SocketHandler & { clients: () => number } {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const clients = new Set<WebSocket>();

  bus.subscribe((_event, json) => {
    if (!clients.size) return;
    // Encode once for every socket; ws would otherwise re-encode the string per client.
    const frame = Buffer.from(json);
    for (const ws of clients) {
      if (ws.readyState !== WebSocket.OPEN) continue;
      if (ws.bufferedAmount > LIMITS.socketBufferBytes) {
        clients.delete(ws);
        ws.terminate();
        continue;
      }
      ws.send(frame, { binary: false });
    }
  });

  return {
    path: '/events',
    handle(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => {
        clients.add(ws);
        ws.on('close', () => clients.delete(ws));
        ws.on('error', () => {
          clients.delete(ws);
          ws.terminate();
        });
        // Clients only listen; anything they send is ignored.
      });
    },
    close() {
      for (const ws of clients) ws.terminate();
      clients.clear();
      wss.close();
    },
    clients: () => clients.size,
  };
}
