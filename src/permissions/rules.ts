/**
 * Permission rules `{key, decision}` and the unattended default, persisted in <home>/permissions.json
 * newest first, so a later choice overrides an earlier one (seed 001 §5 rule 3).
 *
 * Matching: an exact key; a program-level shell key covers its subcommand keys
 * (`run_shell(git:*)` covers `run_shell(git status:*)`); a bare tool name covers that tool's derived
 * keys (`db_query` covers `db_query(main)`).
 */
import { badRequest, notFound } from '../kernel/errors.js';
import { HOME_LAYOUT, type Home } from '../kernel/home.js';
import { LIMITS } from '../kernel/limits.js';

export type RuleDecision = 'allow' | 'deny';

export interface PermissionRule {
  key: string;
  decision: RuleDecision;
}

export interface PermissionsFile {
  rules: PermissionRule[];
  unattended: RuleDecision;
}

// A tool name (MCP names included) optionally followed by a parenthesised derived part.
const KEY_SHAPE = /^[A-Za-z0-9_.-]+(?:\(.+\))?$/s;

/** Checks a rule key, throwing a sentence that says what a valid key looks like. */
export function validateKey(key: unknown, field = 'key'): string {
  if (typeof key !== 'string' || !key.trim()) {
    throw badRequest(`${field} must be a non-empty string such as "run_shell(git status:*)", "run_shell(git:*)", "db_query(main)" or a tool name like "delete_file"`);
  }
  if (key.length > LIMITS.permissionKeyChars) throw badRequest(`${field} is longer than ${LIMITS.permissionKeyChars} characters; use a shorter key`);
  if (/[\r\n]/.test(key)) throw badRequest(`${field} must be one line`);
  if (key !== key.trim() || !KEY_SHAPE.test(key)) {
    throw badRequest(`${field} "${key}" is not a rule key; write a tool name ("delete_file") or a derived key ("run_shell(git status:*)", "db_query(main)")`);
  }
  return key;
}

export function validateDecision(value: unknown, field = 'decision'): RuleDecision {
  if (value !== 'allow' && value !== 'deny') throw badRequest(`${field} must be "allow" or "deny"`);
  return value;
}

/**
 * Why `key` must not be saved as a rule, or undefined: a key holding a secret-shaped value would sit
 * in plain permissions.json and every listing; a shell key naming a program only known when the shell
 * runs it (`run_shell($EDITOR:*)`) is not something a person was shown.
 */
export function ruleKeyProblem(key: string, mask?: (text: string) => string): string | undefined {
  if (mask && mask(key) !== key) return 'holds a secret-shaped value';
  const m = /^[^(]+\((.*):\*\)$/s.exec(key);
  if (m && /[$`'"*?[\]]/.test(m[1])) return 'names a command only known when the shell runs it';
  return undefined;
}

/** The program-level key of a shell-style key: `run_shell(git status:*)` -> `run_shell(git:*)`. */
export function broaderOf(key: string): string | undefined {
  const m = /^([^(]+)\(([^ ():]+) [^:]*:\*\)$/s.exec(key);
  return m ? `${m[1]}(${m[2]}:*)` : undefined;
}

/** Does a rule written for `ruleKey` cover the call key `key`? */
export function covers(ruleKey: string, key: string): boolean {
  if (ruleKey === key) return true;
  const open = ruleKey.indexOf('(');
  if (open < 0) return key.startsWith(ruleKey + '(');
  // `tool(prefix:*)` covers `tool(prefix:*)` and `tool(prefix <more>:*)`.
  const pm = /^(.+)\((.+):\*\)$/s.exec(ruleKey);
  const km = /^(.+)\((.+):\*\)$/s.exec(key);
  if (!pm || !km || pm[1] !== km[1]) return false;
  return km[2] === pm[2] || km[2].startsWith(pm[2] + ' ');
}

/** The decision of the newest rule covering `key`, if any. */
export function decide(rules: readonly PermissionRule[], key: string): RuleDecision | undefined {
  for (const rule of rules) if (covers(rule.key, key)) return rule.decision;
  return undefined;
}

/**
 * Where the rules are kept: the home's permissions.json, or a pool's database (src/pool/stores.ts),
 * so an unattended run is gated the same on whichever engine runs it.
 */
export interface RulesBackend {
  read(): Promise<Partial<PermissionsFile>>;
  /** Applies `change` to the stored state, one change at a time across every writer, and stores the result. */
  update(change: (current: Partial<PermissionsFile>) => PermissionsFile): Promise<PermissionsFile>;
  /** Changes made elsewhere (another engine) call `changed`. */
  watch?(changed: () => void): void;
}

/** permissions.json, written atomically through the home's per-file queue. */
export function fileRules(home: Home): RulesBackend {
  const file = home.path(HOME_LAYOUT.permissions);
  const read = () => home.readJson<Partial<PermissionsFile>>(file, {});
  return {
    read,
    update: (change) =>
      home.serialize(file + '#rules', async () => {
        const next = change(await read());
        await home.writeJson(file, next);
        return next;
      }),
  };
}

/** Loads lazily, caches, and writes through its backend. */
export class RuleStore {
  private state: PermissionsFile | undefined;
  private loading: Promise<PermissionsFile> | undefined;
  /** Counts the changes other engines announced: a read or write that began before one never becomes the cache. */
  private generation = 0;
  private readonly backend: RulesBackend;

  /** `mask` finds secret-shaped values: a rule holding one is refused, never stored. */
  constructor(
    home: Home,
    private readonly mask?: (text: string) => string,
    backend?: RulesBackend,
  ) {
    this.backend = backend ?? fileRules(home);
    // Another engine changed them: read again on next use.
    this.backend.watch?.(() => {
      this.generation++;
      this.state = undefined;
      this.loading = undefined;
    });
  }

  async get(): Promise<PermissionsFile> {
    if (this.state) return this.state;
    this.loading ??= this.load();
    return this.loading;
  }

  private async load(): Promise<PermissionsFile> {
    const began = this.generation;
    const state = normalize(await this.backend.read());
    if (began === this.generation) this.state = state;
    return state;
  }

  /** Adds rules newest first (the first given ends up first); an existing rule for the same key is replaced. */
  async add(...rules: PermissionRule[]): Promise<void> {
    for (const rule of rules) {
      if (ruleKeyProblem(rule.key, this.mask) === 'holds a secret-shaped value') {
        throw badRequest(`the rule key ${this.mask!(rule.key)} holds a secret-shaped value; rules are stored in plain text, so write the key without the secret`);
      }
    }
    await this.update((s) => {
      const keys = new Set(rules.map((r) => r.key));
      s.rules = [...rules.map((r) => ({ key: r.key, decision: r.decision })), ...s.rules.filter((r) => !keys.has(r.key))];
      if (s.rules.length > LIMITS.permissionRules) s.rules.length = LIMITS.permissionRules;
    });
  }

  async remove(key: string): Promise<void> {
    await this.update((s) => {
      const before = s.rules.length;
      s.rules = s.rules.filter((r) => r.key !== key);
      if (s.rules.length === before) {
        throw notFound(`no rule has the key "${key}"; GET /api/permissions lists the rules`);
      }
    });
  }

  async setUnattended(decision: RuleDecision): Promise<void> {
    await this.update((s) => {
      s.unattended = decision;
    });
  }

  // Mutations run one at a time on a copy of what is stored; the cache changes only after the write landed.
  private async update(change: (s: PermissionsFile) => void): Promise<void> {
    const began = this.generation;
    const state = await this.backend.update((stored) => {
      const next = normalize(stored);
      change(next);
      return next;
    });
    if (began === this.generation) this.state = state;
  }
}

/** What a stored file or row holds, read leniently: unknown rules dropped, the unattended default `deny` unless `allow`. */
function normalize(raw: Partial<PermissionsFile>): PermissionsFile {
  const rules = Array.isArray(raw?.rules) ? raw.rules.filter((r): r is PermissionRule => !!r && typeof r.key === 'string' && (r.decision === 'allow' || r.decision === 'deny')) : [];
  return { rules: rules.map((r) => ({ key: r.key, decision: r.decision })), unattended: raw?.unattended === 'allow' ? 'allow' : 'deny' };
}
