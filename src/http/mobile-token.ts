/** The phone's shared secret: minted once per home into mobile-token.json and reused across restarts. */
import { randomBytes } from 'node:crypto';
import { HOME_LAYOUT, type Home } from '../kernel/home.js';

export async function loadMobileToken(home: Home): Promise<string> {
  const stored = await home.readJson<{ token?: unknown }>(HOME_LAYOUT.mobileToken, {});
  if (typeof stored.token === 'string' && stored.token.length >= 32) return stored.token;
  const token = randomBytes(32).toString('base64url');
  await home.writeJson(HOME_LAYOUT.mobileToken, { token, createdAt: new Date().toISOString() }, 0o600);
  return token;
}
