/**
 * Pairing with no typing: the engine installs the unpacked extension into a folder of its home, with
 * a manifest `key` generated once per home (so Chrome gives the extension the same id wherever the
 * folder lives, and the /browser socket can require exactly that Origin) and a pairing.json holding
 * the port and token, which the extension re-reads whenever it (re)connects.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Home } from '../../kernel/home.js';
import { packageRoot } from '../../kernel/version.js';

const PAIRING_FILE = 'pairing.json';
const KEY_FILE = path.join('browser', 'extension-key.json');

/**
 * The extension's source: the repository's folder in a checkout (always current while it is edited),
 * else the copy npm run build puts into dist/ (a package that ships only dist/).
 */
export function extensionSource(root = packageRoot()): string {
  const source = path.join(root, 'extension', 'browser');
  return existsSync(path.join(source, 'manifest.json')) ? source : path.join(root, 'dist', 'extension', 'browser');
}

/** Chrome's extension id: the first 128 bits of SHA-256 over the DER public key, written in letters a-p. */
export function extensionIdOf(publicKeyBase64: string): string {
  const hex = createHash('sha256').update(Buffer.from(publicKeyBase64, 'base64')).digest('hex').slice(0, 32);
  return [...hex].map((c) => String.fromCharCode(97 + parseInt(c, 16))).join('');
}

/** The manifest key this home made before, if it did (it has been paired, or GET /api/browser was read). */
export async function storedExtensionKey(home: Home): Promise<string | undefined> {
  const stored = await home.readJson<{ key?: unknown }>(KEY_FILE, {});
  return typeof stored.key === 'string' && stored.key ? stored.key : undefined;
}

/** The manifest key of this home: generated once, kept (a public key; the private half is never needed). */
export async function extensionKey(home: Home): Promise<string> {
  const stored = await storedExtensionKey(home);
  if (stored) return stored;
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  await home.writeJson(KEY_FILE, { key, createdAt: new Date().toISOString() });
  return key;
}

/** Copies the extension's files into `target` and writes its manifest with the pinned key. */
export async function installExtension(home: Home, source: string, target: string, key: string): Promise<void> {
  for (const entry of await fs.readdir(source, { withFileTypes: true })) {
    if (!entry.isFile() || entry.name === PAIRING_FILE) continue;
    const from = path.join(source, entry.name);
    if (entry.name === 'manifest.json') {
      const manifest = JSON.parse(await fs.readFile(from, 'utf8')) as Record<string, unknown>;
      await writeIfChanged(home, path.join(target, 'manifest.json'), JSON.stringify({ ...manifest, key }, null, 2) + '\n');
    } else {
      await writeIfChanged(home, path.join(target, entry.name), await fs.readFile(from));
    }
  }
}

/** pairing.json: what the extension connects with. Owner-only: it holds the token. */
export async function writePairing(home: Home, target: string, pairing: { port: number; token: string }): Promise<void> {
  await writeIfChanged(home, path.join(target, PAIRING_FILE), JSON.stringify({ url: `ws://127.0.0.1:${pairing.port}/browser`, token: pairing.token }) + '\n', 0o600);
}

export const mintToken = () => randomBytes(24).toString('base64url');

/** A file Chrome watches is only rewritten when its bytes change (an unchanged extension is not reloaded). */
async function writeIfChanged(home: Home, file: string, data: string | Buffer, mode = 0o644): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const current = await fs.readFile(file).catch(() => undefined);
  if (current && current.equals(bytes)) return;
  await home.writeAtomic(file, bytes, mode);
}
