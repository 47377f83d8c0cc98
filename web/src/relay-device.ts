/** The relay's pairing code in the address and the paired device this browser keeps (relay.ts uses them). */
import type { PairedDevice } from '../../src/capabilities/relay/phone-client';

const KEY = 'engine.relayDevice';

/** The pairing code in the address, taken out of the address bar at once. */
export function takeRelayCode(): string | null {
  const code = new URLSearchParams(location.hash.slice(1)).get('relay');
  if (code) history.replaceState(null, '', location.pathname);
  return code;
}

export function storedDevice(): PairedDevice | null {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? 'null');
  } catch {
    return null;
  }
}

export const keepDevice = (device: PairedDevice) => localStorage.setItem(KEY, JSON.stringify(device));
export const forgetDevice = () => localStorage.removeItem(KEY);
