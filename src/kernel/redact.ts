/**
 * The one exit mask: every text the engine sends out passes `Redactor` before it leaves, and the
 * redactor replaces each stored secret value with `***`. The exits, each a single call site:
 *   - events: Bus.emit (so the /events socket, run logs, notifications and every other subscriber);
 *   - the run index: RunLedger (records carry titles and error sentences);
 *   - chat transcripts: ChatStore.encode; a streamed reply through `stream()` before its deltas
 *     are emitted (a value split across deltas would pass the per-event mask in pieces);
 *   - HTTP responses, error sentences included: the onSend hook in src/http/redact-responses.ts;
 *   - model requests (messages, tool output, prompts): the provider client's fetch (providers/clients.ts);
 *   - operational log lines (stderr): the engine's `log`.
 * Known values only, matched exactly (in every spelling `secretForms` makes), so masking is cheap
 * enough for every event and cannot garble text the way a shape guess can; the shape layer
 * (src/permissions/mask.ts) runs where prompts and tool events are built. The values come from
 * the secret store when the engine starts, on every `secrets.changed`, and synchronously on every
 * set (src/capabilities/secrets/redacting.ts), so no answer can overtake a refresh.
 */

import { LiteralSet } from './literal-set.js';
import { dumpMatches, starAt } from './redact-dumps.js';

export const REDACTED = '***';

/** Values shorter than this are not masked: "ab" everywhere would garble every text. */
const MIN_LENGTH = 4;

/**
 * An encoded spelling shorter than this is not masked: a short run of base64 or hex letters turns
 * up by chance in images and hashes the engine passes on (about one in 2^48 positions at 8).
 */
const MIN_ENCODED_LENGTH = 8;

/**
 * Every spelling of a secret value that an output can carry it in: as stored, JSON-escaped,
 * URL-encoded (both the component and the form spelling), reversed, in upper and in lower case,
 * rot13 (`tr a-zA-Z n-za-mN-ZA-M`), letters spaced out (`h u n t e r`), hex (both cases), base64
 * (standard and URL-safe) and base32. Base64 and base32 are taken at each byte alignment, without
 * the edge letters that depend on the bytes around the value, so it is found inside a longer encoded
 * text too (`encode(password, 'base64')`, a base64 blob of a whole config file). Hex dumps, which
 * split a value over lines, are found by decoding them (redact-dumps.ts).
 */
export function secretForms(value: string): string[] {
  const forms = new Set<string>([value, JSON.stringify(value).slice(1, -1), [...value].reverse().join('')]);
  const encoded = new Set<string>([encodeURIComponent(value), encodeURIComponent(value).replace(/%20/g, '+')]);
  encoded.add(value.toUpperCase()).add(value.toLowerCase()).add(rot13(value)).add([...value].join(' '));
  const bytes = Buffer.from(value, 'utf8');
  encoded.add(bytes.toString('hex')).add(bytes.toString('hex').toUpperCase());
  for (const core of alignedCores(bytes, 6, (b) => b.toString('base64'))) encoded.add(core).add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  for (const core of alignedCores(bytes, 5, base32)) encoded.add(core);
  for (const f of encoded) if (f.length >= MIN_ENCODED_LENGTH && f !== value) forms.add(f);
  return [...forms];
}

/**
 * The letters of an encoding with `bits` bits a letter (base64: 6, base32: 5) that depend on the
 * value's bytes alone, at each byte alignment the value can start at: letters that mix in the bytes
 * before it (zeros here) or after it (unknown) are left out.
 */
function alignedCores(bytes: Buffer, bits: number, encode: (b: Buffer) => string): string[] {
  const cores: string[] = [];
  const alignments = bits === 6 ? 3 : 5; // bytes until letters and bytes line up again
  for (let shift = 0; shift < alignments; shift++) {
    const text = encode(Buffer.concat([Buffer.alloc(shift), bytes])).replace(/=+$/, '');
    cores.push(text.slice(Math.ceil((shift * 8) / bits), Math.floor(((shift + bytes.length) * 8) / bits)));
  }
  return cores;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 (what `base32` and Python's b32encode print), without padding. */
function base32(bytes: Buffer): string {
  let out = '';
  let acc = 0;
  let held = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    held += 8;
    while (held >= 5) {
      out += BASE32[(acc >>> (held - 5)) & 31];
      held -= 5;
    }
    acc &= (1 << held) - 1;
  }
  return held ? out + BASE32[(acc << (5 - held)) & 31] : out;
}

function rot13(value: string): string {
  return value.replace(/[a-z]/gi, (c) => String.fromCharCode(((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26) + (c <= 'Z' ? 65 : 97)));
}

export class Redactor {
  private values = new Set<string>();
  /** Every spelling of every value (secretForms), found by one scan (literal-set.ts). */
  private pattern: LiteralSet | undefined;
  /** The values as bytes, for hex dumps (redact-dumps.ts). */
  private bytes: Buffer[] = [];
  /** Every spelling of every value (secretForms), longest first. */
  private forms: string[] = [];

  /** Values masked whatever the secret store holds (the pool's database URL and its password). */
  private readonly pinned = new Set<string>();

  /** Replaces the known values (the secret store's current values; pinned ones stay). */
  setValues(values: Iterable<string>): void {
    this.values = new Set([...values, ...this.pinned].filter((v) => typeof v === 'string' && v.length >= MIN_LENGTH));
    this.compile();
  }

  /** Masks `value` for the life of the engine, whatever the secret store later holds. */
  pin(value: string): void {
    this.pinned.add(value);
    this.add(value);
  }

  /** Adds one value at once (a secret being stored), before anything can echo it. */
  add(value: string): void {
    if (typeof value !== 'string' || value.length < MIN_LENGTH || this.values.has(value)) return;
    this.values.add(value);
    this.compile();
  }

  private compile(): void {
    const forms = new Set<string>();
    for (const v of this.values) for (const f of secretForms(v)) forms.add(f);
    const sorted = [...forms].sort((a, b) => b.length - a.length);
    this.forms = sorted;
    this.pattern = sorted.length ? new LiteralSet(sorted) : undefined;
    this.bytes = [...this.values].map((v) => Buffer.from(v, 'utf8'));
  }

  /** Whether `text` holds a known value (in any spelling the redactor knows). */
  has(text: string): boolean {
    if (!this.pattern || !text) return false;
    return this.pattern.has(text) || dumpMatches(text, this.bytes).length > 0;
  }

  /** Plain text with every known value replaced (in a hex dump, its digits and characters starred first: the dump keeps its shape). */
  readonly text = (text: string): string => {
    if (!this.pattern || !text) return text;
    return this.pattern.replace(starAt(text, dumpMatches(text, this.bytes)), REDACTED);
  };

  /** A value with every string inside it (keys included) redacted; the same object when nothing matched. */
  readonly value = <T>(value: T): T => {
    if (!this.pattern) return value;
    return this.walk(value) as T;
  };

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (!value || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      let changed = false;
      const out = value.map((v) => {
        const r = this.walk(v);
        if (r !== v) changed = true;
        return r;
      });
      return changed ? out : value;
    }
    if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = this.text(k);
      const r = this.walk(v);
      if (r !== v || key !== k) changed = true;
      out[key] = r;
    }
    return changed ? out : value;
  }

  /**
   * Text arriving in chunks (a streamed reply): each chunk is masked together with what came
   * before it, and a tail that could be the start of a stored value is held back until the next
   * chunk decides, so a value split across chunks never leaves in pieces. `flush` at the end of
   * the stream releases what is held.
   */
  stream(): { push(chunk: string): string; flush(): string } {
    let pending = '';
    return {
      push: (chunk) => {
        pending += chunk;
        if (!this.pattern) {
          const out = pending;
          pending = '';
          return out;
        }
        const masked = this.text(pending);
        const hold = this.heldTail(masked);
        pending = masked.slice(masked.length - hold);
        return masked.slice(0, masked.length - hold);
      },
      flush: () => {
        const out = this.text(pending);
        pending = '';
        return out;
      },
    };
  }

  /** The length of the longest end of `text` that is a proper beginning of a known value (in any spelling). */
  private heldTail(text: string): number {
    let best = 0;
    for (const v of this.forms) {
      for (let n = Math.min(v.length - 1, text.length); n > best; n--) {
        if (text.endsWith(v.slice(0, n))) {
          best = n;
          break;
        }
      }
    }
    return best;
  }

  /**
   * JSON text with every known value replaced inside its strings; still valid JSON. Untouched (and
   * unparsed) when no value occurs in it, which is nearly always.
   */
  readonly json = (json: string): string => {
    if (!this.has(json)) return json;
    try {
      return JSON.stringify(this.walk(JSON.parse(json)));
    } catch {
      return this.text(json);
    }
  };
}
