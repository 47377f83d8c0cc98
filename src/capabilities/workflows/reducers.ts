/**
 * State keys and their reducers (LangGraph's channels, in words): `replace` keeps the last write,
 * `append` adds to a list (a list value adds each element), `merge` shallow-merges objects, `add`
 * sums numbers. The `trigger` key always holds the run's payload (seed 001) and is never written.
 */
import type { Reducer, StateKeySpec } from './types.js';

export class StateError extends Error {}

export function initialState(spec: Record<string, StateKeySpec> | undefined, payload: unknown): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(spec ?? {})) {
    if (key === 'trigger') continue;
    state[key] = s.initial !== undefined ? structuredClone(s.initial) : s.reducer === 'append' ? [] : s.reducer === 'merge' ? {} : s.reducer === 'add' ? 0 : null;
  }
  state.trigger = payload;
  return state;
}

export function reduce(reducer: Reducer, key: string, current: unknown, value: unknown): unknown {
  switch (reducer) {
    case 'replace':
      return value;
    case 'append': {
      const list = Array.isArray(current) ? current : current === undefined || current === null ? [] : [current];
      return Array.isArray(value) ? [...list, ...value] : [...list, value];
    }
    case 'merge': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new StateError(`state key "${key}" merges objects; the value written was ${describe(value)}`);
      const base = current && typeof current === 'object' && !Array.isArray(current) ? current : {};
      return { ...base, ...value };
    }
    case 'add': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) throw new StateError(`state key "${key}" adds numbers; the value written was ${describe(value)}`);
      return (typeof current === 'number' ? current : 0) + n;
    }
  }
}

const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)?.slice(0, 60)}`);
