/**
 * The `push` key of the app settings: `subject`, the VAPID contact a push service may write to about
 * this engine's pushes (RFC 8292 §2.1). It must be an `https:` URL or a `mailto:` address that reaches
 * a person on the public internet: Apple's push service refuses `localhost` subjects, and an address
 * only this machine can resolve tells no operator anything. `null` (the default) means none is set,
 * and no push is sent until one is (docs/push.md).
 */
import net from 'node:net';

export interface PushSettings {
  subject: string | null;
}

const EXAMPLE = '"mailto:you@example.com" or "https://example.com/contact"';

/** Applies `value` over `out`; returns a sentence saying what to fix, or undefined when applied. */
export function applyPushSettings(out: PushSettings, value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return `push must be an object like {"subject": ${EXAMPLE}}`;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (k !== 'subject') return `push has no field "${k}"; its one field is subject`;
    if (v === null) {
      out.subject = null;
      continue;
    }
    const problem = subjectProblem(v);
    if (problem) return problem;
    out.subject = (v as string).trim();
  }
  return undefined;
}

/** Why `value` is not a usable VAPID subject, or undefined when it is. */
export function subjectProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value.trim()) return `push.subject must be an https: URL or a mailto: address, such as ${EXAMPLE}, or null`;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return `push.subject "${value.slice(0, 80)}" is not a URL; use ${EXAMPLE}`;
  }
  let host: string;
  if (url.protocol === 'mailto:') {
    const at = url.pathname.lastIndexOf('@');
    if (at <= 0 || url.search) return `push.subject "${value.slice(0, 80)}" is not a mailto: address of one mailbox; use ${EXAMPLE}`;
    host = url.pathname.slice(at + 1);
  } else if (url.protocol === 'https:') {
    if (url.username || url.password) return 'push.subject must not carry a user name or password; push services show it to their operators';
    host = url.hostname;
  } else {
    return `push.subject must start with https: or mailto: (got ${url.protocol}); use ${EXAMPLE}`;
  }
  const local = localHostReason(host.toLowerCase().replace(/^\[|\]$/g, ''));
  return local ? `push.subject names ${local}, which push services refuse (Apple's among them); give an address on the public internet, such as ${EXAMPLE}` : undefined;
}

function localHostReason(host: string): string | undefined {
  if (!host) return 'no host';
  if (host === 'localhost' || host.endsWith('.localhost')) return `"${host}", this machine`;
  if (net.isIP(host)) return `the bare address ${host}`;
  if (!host.includes('.')) return `"${host}", a name without a domain`;
  if (/\.(local|internal|lan|home|test|invalid|example)$/.test(host)) return `"${host}", a name only a local network resolves`;
  return undefined;
}
