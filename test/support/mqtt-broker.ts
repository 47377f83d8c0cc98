/**
 * A real MQTT broker on loopback for the relay's tests and bench: aedes behind a `ws` WebSocket
 * server, the way a phone's browser and the engine reach a broker. `restart()` closes it and opens
 * it again on the same port (a broker restart as clients see it).
 */
import { Aedes } from 'aedes';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebSocketStream, WebSocketServer } from 'ws';

export interface TestBroker {
  /** ws://127.0.0.1:<port>/mqtt */
  url: string;
  port: number;
  /** Clients connected now. */
  clients(): number;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startBroker(port = 0): Promise<TestBroker> {
  let broker: Aedes;
  let server: http.Server;
  let wss: WebSocketServer;
  const open = async (p: number) => {
    broker = await Aedes.createBroker();
    server = http.createServer();
    wss = new WebSocketServer({ server, path: '/mqtt' });
    wss.on('connection', (ws, req) => broker.handle(createWebSocketStream(ws) as never, req));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => resolve());
    });
    return (server.address() as AddressInfo).port;
  };
  const shut = async () => {
    for (const ws of wss.clients) ws.terminate();
    await new Promise<void>((r) => broker.close(() => r()));
    wss.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  const actual = await open(port);
  return {
    url: `ws://127.0.0.1:${actual}/mqtt`,
    port: actual,
    clients: () => broker.connectedClients,
    async restart() {
      await shut();
      await open(actual);
    },
    close: shut,
  };
}
