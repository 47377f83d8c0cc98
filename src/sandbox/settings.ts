/** Validates the `sandbox` key of the app settings: a partial object merged field by field. */
import { SANDBOX_MODES, WHEN_UNAVAILABLE, type SandboxMode, type SandboxSettings, type WhenUnavailable } from './types.js';

/** Applies `value` over `out`; returns a sentence saying what to fix, or undefined when applied. */
export function applySandboxSettings(out: SandboxSettings, value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return 'sandbox must be an object like {"mode": "workspace-write", "network": false, "whenUnavailable": "ask"}';
  }
  const next = { ...out };
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (k === 'mode') {
      if (typeof v !== 'string' || !SANDBOX_MODES.includes(v as SandboxMode)) return `sandbox.mode must be one of ${SANDBOX_MODES.map((m) => `"${m}"`).join(', ')}`;
      next.mode = v as SandboxMode;
    } else if (k === 'network') {
      if (typeof v !== 'boolean') return 'sandbox.network must be true (commands reach public hosts through the engine proxy) or false (no network, not even loopback)';
      next.network = v;
    } else if (k === 'whenUnavailable') {
      if (typeof v !== 'string' || !WHEN_UNAVAILABLE.includes(v as WhenUnavailable)) {
        return 'sandbox.whenUnavailable must be "ask" (ask a person, refuse unattended runs), "refuse" or "run" (run unsandboxed)';
      }
      next.whenUnavailable = v as WhenUnavailable;
    } else {
      return `sandbox has no field "${k}"; its fields are mode, network and whenUnavailable`;
    }
  }
  Object.assign(out, next);
  return undefined;
}
