/**
 * The fallback secret store: one AES-256-GCM encrypted JSON map in the home (0600), its key in its
 * own 0600 file beside it. It protects against casual reading, backups and `grep`, not against
 * someone who can read both files as the same user; the README says so.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { serverError } from '../../kernel/errors.js';
import { HOME_LAYOUT, type Home } from '../../kernel/home.js';

const AAD = Buffer.from('workbench-engine secrets v1');
export const SECRETS_KEY_FILE = 'secrets.key';

interface Sealed {
  v: 1;
  iv: string;
  tag: string;
  data: string;
}

export class FileVault {
  private key: Buffer | undefined;

  constructor(private readonly home: Home) {}

  private async loadKey(): Promise<Buffer> {
    if (this.key) return this.key;
    const file = this.home.path(SECRETS_KEY_FILE);
    try {
      const text = (await fs.readFile(file, 'utf8')).trim();
      const key = Buffer.from(text, 'base64');
      if (key.length !== 32) throw serverError(`${file} does not hold a 32-byte key; restore it from a backup or remove it together with ${HOME_LAYOUT.secretsFile}`);
      this.key = key;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const key = randomBytes(32);
      await this.home.writeAtomic(file, key.toString('base64') + '\n', 0o600);
      this.key = key;
    }
    return this.key;
  }

  async read(): Promise<Record<string, string>> {
    let sealed: Sealed;
    try {
      sealed = JSON.parse(await fs.readFile(this.home.path(HOME_LAYOUT.secretsFile), 'utf8')) as Sealed;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw serverError(`${HOME_LAYOUT.secretsFile} cannot be read; restore it from a backup or remove it and store the secrets again`);
    }
    const key = await this.loadKey();
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAAD(AAD);
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as Record<string, string>;
    } catch {
      throw serverError(`${HOME_LAYOUT.secretsFile} does not decrypt with ${SECRETS_KEY_FILE}; the two files must come from the same home`);
    }
  }

  async write(values: Record<string, string>): Promise<void> {
    const key = await this.loadKey();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(AAD);
    const data = Buffer.concat([cipher.update(JSON.stringify(values), 'utf8'), cipher.final()]);
    const sealed: Sealed = { v: 1, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
    await this.home.writeJson(HOME_LAYOUT.secretsFile, sealed, 0o600);
  }
}
