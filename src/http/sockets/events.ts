/**
 * The /events socket: every event to every open socket, serialized once by the bus.
 * No filters, no replay (seed 000 §4.21). A client that falls behind by more than the buffer
 * bound is dropped, so a slow or dead client never stalls the engine or the other clients.
 *
 * Events come in bursts (a batch of node deltas, a tool's output): every socket is corked at the
 * first event of a burst and uncorked once the current tick's work is done (process.nextTick, so no
 * event waits for I/O), and the burst leaves as one write per client instead of one per event and
 * client: at 1 000 clients the per-event write calls were most of the engine's time (bench/event-fanout).
 */
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { Bus } from '../../kernel/bus.js';
import { LIMITS } from '../../kernel/limits.js';
import type { SocketHandler } from './upgrade.js';

/** What a client may say on the socket: the workbench's presence (src/capabilities/push/presence.ts). */
export interface ClientFrames {
  parse(client: object, text: string): void;
  drop(client: object): void;
}

export function eventsSocket(bus: Bus, frames?: ClientFrames): SocketHandler & { clients: () => number } {
  // Clients send only small frames (presence): a large one is refused by ws, not buffered.
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 4096 });
  /** Each client with the connection it writes to. */
  const clients = new Map<WebSocket, Duplex>();
  const corked: Duplex[] = [];
  let flushing = false;
  /** Bytes of the burst now corked: they wait on purpose and do not count as a client falling behind. */
  let burstBytes = 0;
  const flush = () => {
    flushing = false;
    burstBytes = 0;
    for (const socket of corked.splice(0)) socket.uncork();
  };

  bus.subscribe((_event, json) => {
    if (!clients.size) return;
    // Encode once for every socket; ws would otherwise re-encode the string per client.
    const frame = Buffer.from(json);
    const first = !flushing;
    if (first) {
      // Scheduled before any cork, so a throw below cannot leave a socket corked.
      flushing = true;
      process.nextTick(flush);
    }
    for (const [ws, socket] of clients) {
      if (ws.readyState !== WebSocket.OPEN) continue;
      if (ws.bufferedAmount - burstBytes > LIMITS.socketBufferBytes) {
        clients.delete(ws);
        ws.terminate();
        continue;
      }
      if (first) {
        socket.cork();
        corked.push(socket);
      }
      ws.send(frame, { binary: false });
    }
    burstBytes += frame.length + 10; // plus at most a frame header
  });

  return {
    path: '/events',
    handle(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => {
        // Joins uncorked mid-burst: only sockets corked by this burst's first event are uncorked.
        clients.set(ws, socket);
        ws.on('close', () => {
          clients.delete(ws);
          frames?.drop(ws);
        });
        ws.on('error', () => {
          clients.delete(ws);
          frames?.drop(ws);
          ws.terminate();
        });
        // Clients mostly listen; a text frame goes to `frames` (presence), anything else is ignored.
        ws.on('message', (data, isBinary) => void (!isBinary && frames?.parse(ws, String(data))));
      });
    },
    close() {
      for (const ws of clients.keys()) ws.terminate();
      clients.clear();
      wss.close();
    },
    clients: () => clients.size,
  };
}
