import { LIMITS } from '../kernel/limits.js';

/**
 * Clips a tool result to the registry ceiling, naming what was dropped. Tools put their paging
 * header first precisely because the clip removes the tail.
 */
export function clipResult(text: string, max: number = LIMITS.toolResultChars): string {
  if (text.length <= max) return text;
  const note = `\n[clipped: dropped the last ${text.length - max} of ${text.length} characters; ask for a narrower range or the next page]`;
  return text.slice(0, max - note.length) + note;
}
