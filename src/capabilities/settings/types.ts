/** App settings (seed 000 §2): defaults are documented in the README. Types only. */
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../../sandbox/types.js';
import type { PushSettings } from './push-subject.js';

export interface CompletionsSettings {
  /** Editor ghost-text completion on or off. */
  enabled: boolean;
  /** Provider name used for completions; null means the default provider. */
  provider: string | null;
}

export interface AppSettings {
  /** Most model steps a chat turn may take before it stops. */
  chatMaxTurns: number;
  /** Fraction (0-1) of the model's context window at which older turns are summarised. */
  compactFraction: number;
  /** Share (0-1) of the model's context window that tool definitions may take in one request (docs/local-models.md). */
  toolBudgetShare: number;
  completions: CompletionsSettings;
  /** The sandbox under run_shell (docs/security.md): mode, network, what to do when none can start. */
  sandbox: SandboxSettings;
  /** Phone push (docs/push.md): the VAPID subject, an https: or mailto: address; null until set. */
  push: PushSettings;
}

export const DEFAULT_SETTINGS: AppSettings = {
  chatMaxTurns: 50,
  compactFraction: 0.8,
  toolBudgetShare: 0.25,
  completions: { enabled: true, provider: null },
  sandbox: { ...DEFAULT_SANDBOX_SETTINGS },
  push: { subject: null },
};

export interface SettingsService {
  get(): AppSettings;
}
