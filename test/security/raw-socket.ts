/**
 * Bytes exactly as written on a TCP socket (duplicate headers, absolute-form targets, broken request
 * lines), and the status line, headers and body of the answer. http.request cannot send those.
 */
import net from 'node:net';

export interface RawReply {
  status: number;
  head: string;
  body: string;
}

export function rawExchange(port: number, text: string, opts: { host?: string; localAddress?: string } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: opts.host ?? '127.0.0.1', port, localAddress: opts.localAddress });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      const all = Buffer.concat(chunks).toString('latin1');
      const split = all.indexOf('\r\n\r\n');
      const head = split === -1 ? all : all.slice(0, split);
      let body = split === -1 ? '' : all.slice(split + 4);
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      if (length) body = body.slice(0, Number(length[1]));
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0), head, body: Buffer.from(body, 'latin1').toString('utf8') });
      socket.destroy();
    };
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const all = Buffer.concat(chunks).toString('latin1');
      const split = all.indexOf('\r\n\r\n');
      if (split === -1) return;
      const head = all.slice(0, split);
      // A 101 has no body; an answer with a length is complete once the body is in.
      if (/^HTTP\/1\.1 101/.test(head)) return finish();
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      if (length && Buffer.byteLength(all.slice(split + 4), 'latin1') >= Number(length[1])) finish();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (err) => (chunks.length ? finish() : reject(err)));
    socket.write(text);
  });
}

/** A GET with the given target and header lines (each `Name: value`), Connection: close. */
export function rawGet(port: number, target: string, headerLines: string[], opts: { host?: string; localAddress?: string } = {}): Promise<RawReply> {
  return rawExchange(port, `GET ${target} HTTP/1.1\r\n${[...headerLines, 'Connection: close'].join('\r\n')}\r\n\r\n`, opts);
}

/** WebSocket upgrade header lines (without Host). */
export const UPGRADE_LINES = ['Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='];

export function rawUpgradeLines(port: number, target: string, headerLines: string[], opts: { host?: string; localAddress?: string } = {}): Promise<RawReply> {
  return rawExchange(port, `GET ${target} HTTP/1.1\r\n${[...headerLines, ...UPGRADE_LINES].join('\r\n')}\r\n\r\n`, opts);
}
