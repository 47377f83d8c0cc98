/**
 * Tool calls in a local model's text: the Hermes / Qwen 2.5+ format, one JSON object per
 * `<tool_call>...</tool_call>` block: {"name": ..., "arguments": {...}}. The splitter streams the
 * text around the blocks and holds back anything that may be the start of a block.
 */
export const OPEN = '<tool_call>';
export const CLOSE = '</tool_call>';

interface ParsedToolCall { name: string; arguments: unknown }

/** Parses one block's body; undefined when it is not a {name, arguments} object. */
function parseToolCallBody(body: string): ParsedToolCall | undefined {
  try {
    const v = JSON.parse(body.trim());
    if (!v || typeof v !== 'object' || typeof v.name !== 'string' || !v.name) return undefined;
    const args = typeof v.arguments === 'string' ? JSON.parse(v.arguments) : (v.arguments ?? v.parameters ?? {});
    return { name: v.name, arguments: args };
  } catch {
    return undefined;
  }
}

/** Feeds text deltas in; calls `text` for plain text and `call` for each complete block. */
export class ToolCallSplitter {
  private buf = '';
  private inside = false;

  constructor(private readonly out: { text(t: string): void; call(c: ParsedToolCall, raw: string): void }) {}

  push(delta: string): void {
    this.buf += delta;
    for (;;) {
      if (!this.inside) {
        const at = this.buf.indexOf(OPEN);
        if (at >= 0) {
          if (at > 0) this.out.text(this.buf.slice(0, at));
          this.buf = this.buf.slice(at + OPEN.length);
          this.inside = true;
          continue;
        }
        // Hold back a tail that could still grow into "<tool_call>".
        let keep = 0;
        for (let n = Math.min(OPEN.length - 1, this.buf.length); n > 0; n--) if (OPEN.startsWith(this.buf.slice(-n))) { keep = n; break; }
        const emit = this.buf.slice(0, this.buf.length - keep);
        if (emit) this.out.text(emit);
        this.buf = this.buf.slice(this.buf.length - keep);
        return;
      }
      const end = this.buf.indexOf(CLOSE);
      if (end < 0) return;
      const body = this.buf.slice(0, end);
      this.buf = this.buf.slice(end + CLOSE.length);
      this.inside = false;
      const call = parseToolCallBody(body);
      if (call) this.out.call(call, body);
      else this.out.text(OPEN + body + CLOSE); // not a call after all: the reader sees what the model wrote
    }
  }

  /** The end of the reply: an unfinished block is text. */
  end(): void {
    if (this.buf || this.inside) this.out.text((this.inside ? OPEN : '') + this.buf);
    this.buf = '';
    this.inside = false;
  }
}
