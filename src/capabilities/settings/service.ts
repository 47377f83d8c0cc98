/**
 * App settings (seed 000 §2): `chatMaxTurns`, `compactFraction`, `toolBudgetShare`, `completions`, persisted in
 * <home>/settings.json. A PUT may be partial: given fields are merged over the current settings
 * (and `completions` field by field), so a client can change one value without knowing the rest.
 */
import type { Bus } from '../../kernel/bus.js';
import { badRequest, describeError } from '../../kernel/errors.js';
import { HOME_LAYOUT, type Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import { serialQueue } from '../../kernel/serial.js';
import { applySandboxSettings } from '../../sandbox/settings.js';
import { applyPushSettings } from './push-subject.js';
import { DEFAULT_SETTINGS, type AppSettings, type SettingsService } from './types.js';

export interface SettingsServiceImpl extends SettingsService {
  /** Validates and merges a (partial) settings object, persists it and emits `settings.updated`. */
  update(patch: unknown): Promise<AppSettings>;
  onChange(listener: (settings: AppSettings) => void): () => void;
}

const clone = (s: AppSettings): AppSettings => ({ ...s, completions: { ...s.completions }, sandbox: { ...s.sandbox }, push: { ...s.push } });

export async function createSettingsService(deps: { home: Home; bus: Bus; log: (line: string) => void }): Promise<SettingsServiceImpl> {
  const { home, bus, log } = deps;
  let current = clone(DEFAULT_SETTINGS);
  const listeners = new Set<(s: AppSettings) => void>();

  // A hand-edited file with a bad value must not stop the engine: keep the good fields, say which were dropped.
  try {
    const stored = await home.readJson<unknown>(HOME_LAYOUT.settings, {});
    current = mergeLenient(current, stored, (msg) => log(`settings: ${msg}; using the default instead`));
  } catch (err) {
    log(`settings: ${describeError(err)}; using the defaults`);
  }

  // One update at a time, so two partial PUTs never lose each other's fields.
  const serial = serialQueue();
  return {
    get: () => clone(current),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    update(patch) {
      return serial(async () => {
        const merged = mergeSettings(current, patch);
        await home.writeJson(HOME_LAYOUT.settings, merged);
        current = merged;
        bus.emit('settings.updated', { settings: clone(merged) });
        for (const l of listeners) l(clone(merged));
        return clone(merged);
      });
    },
  };
}

/** Strict merge for PUT: any unknown field or bad value is a 400 sentence. */
export function mergeSettings(base: AppSettings, patch: unknown): AppSettings {
  if (patch === undefined || patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
    throw badRequest('send a JSON object with any of chatMaxTurns, compactFraction, toolBudgetShare, completions, sandbox, push');
  }
  const out = clone(base);
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    const problem = applyField(out, key, value);
    if (problem) throw badRequest(problem);
  }
  return out;
}

function mergeLenient(base: AppSettings, stored: unknown, warn: (msg: string) => void): AppSettings {
  const out = clone(base);
  if (!stored || typeof stored !== 'object' || Array.isArray(stored)) {
    warn(`${HOME_LAYOUT.settings} does not hold a JSON object`);
    return out;
  }
  for (const [key, value] of Object.entries(stored as Record<string, unknown>)) {
    const problem = applyField(out, key, value);
    if (problem) warn(problem);
  }
  return out;
}

/** Applies one field; returns a sentence saying what to fix, or undefined when it was applied. */
function applyField(out: AppSettings, key: string, value: unknown): string | undefined {
  switch (key) {
    case 'chatMaxTurns':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > LIMITS.chatMaxTurnsMax) {
        return `chatMaxTurns must be a whole number from 1 to ${LIMITS.chatMaxTurnsMax}`;
      }
      out.chatMaxTurns = value;
      return undefined;
    case 'compactFraction':
      if (typeof value !== 'number' || !Number.isFinite(value) || value < LIMITS.compactFractionMin || value > LIMITS.compactFractionMax) {
        return `compactFraction must be a number from ${LIMITS.compactFractionMin} to ${LIMITS.compactFractionMax} (the share of the context window at which older turns are summarised)`;
      }
      out.compactFraction = value;
      return undefined;
    case 'toolBudgetShare':
      if (typeof value !== 'number' || !Number.isFinite(value) || value < LIMITS.toolBudgetShareMin || value > LIMITS.toolBudgetShareMax) {
        return `toolBudgetShare must be a number from ${LIMITS.toolBudgetShareMin} to ${LIMITS.toolBudgetShareMax} (the share of the context window that tool definitions may take)`;
      }
      out.toolBudgetShare = value;
      return undefined;
    case 'completions': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) {
        return 'completions must be an object like {"enabled": true, "provider": null}';
      }
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (k === 'enabled') {
          if (typeof v !== 'boolean') return 'completions.enabled must be true or false';
          out.completions.enabled = v;
        } else if (k === 'provider') {
          if (v !== null && (typeof v !== 'string' || !v.trim())) return 'completions.provider must be a provider name or null for the default provider';
          out.completions.provider = v === null ? null : (v as string).trim();
        } else {
          return `completions has no field "${k}"; its fields are enabled and provider`;
        }
      }
      return undefined;
    }
    case 'sandbox':
      return applySandboxSettings(out.sandbox, value);
    case 'push':
      return applyPushSettings(out.push, value);
    default:
      return `there is no setting "${key}"; the settings are chatMaxTurns, compactFraction, toolBudgetShare, completions, sandbox and push`;
  }
}
