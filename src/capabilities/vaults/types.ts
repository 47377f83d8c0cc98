/** Vaults (seed 000 §2, §4.9; seed 001 §4.5): the shapes other capabilities may know. Types only. */

export type FieldKind = 'string' | 'number' | 'boolean' | 'date' | 'list';

/** One frontmatter field a note type declares. */
export interface FieldSpec {
  type: FieldKind;
  required?: boolean;
  /** Allowed values (for `string`). */
  enum?: string[];
}

export interface NoteTypeSpec {
  /** Vault-relative folder new notes of this type are filed into ("" is the vault root). */
  folder: string;
  fields: Record<string, FieldSpec>;
  /** An immutable note is never changed by an agent (no `append_log`). */
  immutable: boolean;
}

/** `vault.json`, documented in docs/vaults.md. */
export interface VaultSchema {
  version: 1;
  types: Record<string, NoteTypeSpec>;
  /** The type of a note whose frontmatter and folder name none. */
  defaultType: string;
  inbox: string;
  logHeading: string;
  /** Globs (vault-relative) an agent may neither read nor write. */
  agentForbidden: string[];
}

export type LinkKind = 'wikilink' | 'embed' | 'markdown';

/** One outbound link as written in a note. */
export interface RawLink {
  kind: LinkKind;
  /** The target as written, without `#heading` and `|label`. */
  target: string;
  heading?: string;
  label?: string;
  line: number;
}

export type Resolution =
  | { status: 'resolved'; path: string; via: 'path' | 'suffix' | 'name' | 'alias' | 'relative' | 'self' }
  | { status: 'unresolved' }
  | { status: 'ambiguous'; candidates: string[] };

/** What the index keeps of one note (persisted in the engine home). */
export interface NoteRecord {
  /** Vault-relative path with `.md`. */
  rel: string;
  mtimeMs: number;
  size: number;
  frontmatter: Record<string, unknown>;
  aliases: string[];
  headings: string[];
  links: RawLink[];
  /** Frontmatter that did not parse. */
  frontmatterError?: string;
}

/** The public metadata of one note (GET .../index, .../note). */
export interface NoteMeta {
  path: string;
  name: string;
  type: string;
  folder: string;
  inbox: boolean;
  frontmatter: Record<string, unknown>;
  aliases: string[];
  links: Array<RawLink & { resolution: Resolution }>;
  backlinks: string[];
  unresolved: string[];
  ambiguous: Array<{ target: string; candidates: string[] }>;
  problems: string[];
  size: number;
  mtimeMs: number;
}

export interface SearchHit {
  path: string;
  name: string;
  type: string;
  score: number;
  snippet: string;
  matched: Array<'name' | 'alias' | 'body'>;
}

/** One vault as GET /api/vaults lists it. */
export interface VaultSummary {
  name: string;
  path: string;
  git: boolean;
  notes: number;
  inbox: number;
  /** Why the vault cannot be opened (a broken vault.json), when it cannot. */
  error?: string;
}
