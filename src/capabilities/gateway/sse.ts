/**
 * Reads usage out of a server-sent-event stream without decoding what passes through. Bytes are
 * forwarded up to the last complete event of each chunk (a partial event waits for its end); only a
 * stretch that holds a usage object is decoded and parsed. The usage-only chunk (empty `choices`)
 * is cut out: the gateway asked for it to bill the run, the caller did not.
 */
const USAGE_MARKERS = [Buffer.from('"usage":{'), Buffer.from('"usage": {')];
const LF = Buffer.from('\n\n');
const CRLF = Buffer.from('\r\n\r\n');

export class UsageTap {
  /** The last usage object seen (OpenAI's wire shape). */
  usage: unknown;
  private held: Buffer | undefined;

  /** Feeds one chunk; returns what to forward now (undefined when it is all held). */
  push(chunk: Buffer): Buffer | string | undefined {
    const data = this.held ? Buffer.concat([this.held, chunk]) : chunk;
    const end = Math.max(endOf(data, LF), endOf(data, CRLF));
    if (end === -1) {
      this.held = data;
      return undefined;
    }
    this.held = end < data.length ? data.subarray(end) : undefined;
    const whole = end < data.length ? data.subarray(0, end) : data;
    if (!USAGE_MARKERS.some((m) => whole.includes(m))) return whole;
    return this.readEvents(whole.toString('utf8'));
  }

  /** Whatever followed the last complete event (a stream that ended without a blank line). */
  end(): Buffer | undefined {
    const rest = this.held;
    this.held = undefined;
    return rest;
  }

  private readEvents(text: string): string {
    let out = '';
    for (const event of text.split(/(?<=\r?\n\r?\n)/)) {
      const data = eventData(event);
      if (data?.usage && typeof data.usage === 'object') {
        this.usage = data.usage;
        if (Array.isArray(data.choices) && data.choices.length === 0) continue;
      }
      out += event;
    }
    return out;
  }
}

/**
 * The usage chunk closes an OpenAI stream (after it only `[DONE]`): keeping the last few chunks is
 * enough to read it at the end, at no cost per chunk while the bytes pass.
 */
export class UsageTail {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0].length >= TAIL_BYTES) this.size -= this.chunks.shift()!.length;
  }

  /** The last usage object in the kept tail (OpenAI's wire shape), if any. */
  usage(): unknown {
    const text = Buffer.concat(this.chunks).toString('utf8');
    let usage: unknown;
    for (const event of text.split(/\r?\n\r?\n/)) {
      // Only an event that names usage is worth parsing (the others are the answer's own deltas).
      if (!event.includes('"usage"')) continue;
      const data = eventData(event);
      if (data?.usage && typeof data.usage === 'object') usage = data.usage;
    }
    return usage;
  }
}

/** Enough of a stream's end to hold its usage chunk and `[DONE]` whole. */
const TAIL_BYTES = 16 * 1024;

function endOf(data: Buffer, boundary: Buffer): number {
  const at = data.lastIndexOf(boundary);
  return at === -1 ? -1 : at + boundary.length;
}

/** The JSON of an event's `data:` lines, or undefined for `[DONE]`, comments and non-JSON data. */
export function eventData(event: string): any {
  let data = '';
  for (const line of event.split(/\r?\n/)) {
    if (line.startsWith('data:')) data += line.slice(line[5] === ' ' ? 6 : 5);
  }
  if (!data || data === '[DONE]') return undefined;
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}
