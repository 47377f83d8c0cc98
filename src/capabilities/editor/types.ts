/** The editor helpers' answers (seed 000 §4.19, §4.1). Types only. */
export interface CompleteAnswer {
  /** The ghost text, or null for no suggestion. */
  text: string | null;
  /** Why there is no suggestion (off, no provider, deadline, replaced by a newer request, a provider error). */
  reason?: string;
}

export type ApplyAnswer = { merged: string; tier: 'splice' | 'model' } | { merged: null; reason: string };

export interface InlineEditAnswer {
  code: string;
}
