/**
 * The widget catalog: the built-in types (one per renderer) and custom types a person adds on a
 * known renderer (`<home>/widgets/<name>.json`, PUT /api/widgets/<name>). A file that does not
 * parse is listed with its `error` and never used.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { badRequest, notFound } from '../../kernel/errors.js';
import type { Home } from '../../kernel/home.js';
import { RENDERERS, type Renderer, type WidgetType } from './types.js';
import { SHAPES } from './widget-data.js';

export const WIDGETS_DIR = 'widgets';
export const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const BUILT_IN: Record<Renderer, { label: string; description: string; span?: number }> = {
  stat: { label: 'Stat', description: 'One number that matters, with its unit, the change since last time and a small trend line.' },
  table: { label: 'Table', description: 'Rows under named columns.', span: 2 },
  list: { label: 'List', description: 'A short list of items, each with an optional detail line.' },
  markdown: { label: 'Text', description: 'A paragraph or a few bullet points of markdown (no HTML, no remote images).', span: 2 },
  progress: { label: 'Progress', description: 'How far along something is, as a bar from 0 to max.' },
  kv: { label: 'Facts', description: 'A few labelled values.' },
  chart: { label: 'Chart', description: 'A Vega-Lite chart, its rows inline in data.values; rendered as SVG on the server.', span: 2 },
};

export interface CatalogEntry {
  name: string;
  renderer?: Renderer;
  label?: string;
  span?: number;
  description?: string;
  builtIn: boolean;
  shape?: string;
  /** Why a hand-edited file is not used. */
  error?: string;
}

export function createCatalog(home: Home) {
  const custom = new Map<string, CatalogEntry>();
  const dir = () => home.path(WIDGETS_DIR);
  const file = (name: string) => path.join(dir(), `${name}.json`);

  async function load(): Promise<void> {
    custom.clear();
    const names = await fs.readdir(dir()).catch(() => [] as string[]);
    for (const f of names.filter((n) => n.endsWith('.json'))) {
      const name = f.slice(0, -5);
      const text = await fs.readFile(file(name), 'utf8').catch(() => '');
      custom.set(name, judge(name, text));
    }
  }

  function judge(name: string, text: string): CatalogEntry {
    try {
      if (!NAME.test(name)) throw new Error(`the file name must be a widget name (lower-case letters, digits, - or _)`);
      const parsed = checkWidgetType(name, JSON.parse(text));
      return { ...parsed, shape: SHAPES[parsed.renderer] };
    } catch (err) {
      return { name, builtIn: false, error: err instanceof SyntaxError ? `not valid JSON: ${err.message}` : (err as Error).message };
    }
  }

  /** Every usable type by name (built-ins first; a custom type never shadows a built-in). */
  function types(): Map<string, WidgetType> {
    const out = new Map<string, WidgetType>();
    for (const r of RENDERERS) out.set(r, { name: r, renderer: r, ...BUILT_IN[r], builtIn: true, shape: SHAPES[r] });
    for (const e of custom.values()) if (!e.error && !out.has(e.name)) out.set(e.name, e as WidgetType);
    return out;
  }

  return {
    load,
    types,
    list: () => ({ widgets: [...types().values(), ...[...custom.values()].filter((e) => e.error)], renderers: [...RENDERERS] }),
    async put(name: string, body: unknown): Promise<WidgetType> {
      if (!NAME.test(name)) throw badRequest(`widget name "${name}" must be lower-case letters, digits, - or _ (at most 64)`);
      if ((RENDERERS as readonly string[]).includes(name)) throw badRequest(`"${name}" is a built-in widget type and cannot be changed; add a type of your own on the ${name} renderer`);
      const type = checkWidgetType(name, body);
      const text = JSON.stringify({ renderer: type.renderer, label: type.label, span: type.span, description: type.description }, null, 2) + '\n';
      await home.writeAtomic(file(name), text);
      custom.set(name, { ...type, shape: SHAPES[type.renderer] });
      return types().get(name)!;
    },
    async remove(name: string): Promise<void> {
      if ((RENDERERS as readonly string[]).includes(name)) throw badRequest(`"${name}" is a built-in widget type and cannot be deleted`);
      if (!custom.has(name)) throw notFound(`no widget type "${name}" (GET /api/widgets lists them)`);
      await fs.rm(file(name), { force: true });
      custom.delete(name);
    },
    /** The version-history adapter (kind `widget`): a restore re-reads the type. */
    historyAdapter: {
      read: (name: string) => fs.readFile(file(name), 'utf8').catch(() => undefined),
      write: async (name: string, content: string) => {
        await home.writeAtomic(file(name), content);
        custom.set(name, judge(name, content));
      },
    },
    textOf: (name: string) => fs.readFile(file(name), 'utf8').catch(() => undefined),
  };
}

export type Catalog = ReturnType<typeof createCatalog>;

/** `{renderer, label?, span?, description}`; throws one sentence listing every problem. */
function checkWidgetType(name: string, body: unknown): WidgetType {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('send a JSON object {renderer, label?, span?, description}');
  const b = body as Record<string, unknown>;
  const problems: string[] = [];
  for (const k of Object.keys(b)) if (!['renderer', 'label', 'span', 'description'].includes(k)) problems.push(`unknown field "${k}" (fields: renderer, label, span, description)`);
  if (typeof b.renderer !== 'string' || !(RENDERERS as readonly string[]).includes(b.renderer)) problems.push(`renderer must be one of ${RENDERERS.join(', ')} (got ${JSON.stringify(b.renderer ?? null)})`);
  if (b.label !== undefined && (typeof b.label !== 'string' || b.label.length > 60)) problems.push('label must be a string of at most 60 characters');
  if (b.span !== undefined && !(Number.isInteger(b.span) && (b.span as number) >= 1 && (b.span as number) <= 12)) problems.push(`span must be an integer from 1 to 12 (got ${JSON.stringify(b.span)})`);
  if (typeof b.description !== 'string' || !b.description.trim()) problems.push('description is required: say what the widget shows, for the model that fills it');
  if (problems.length) throw badRequest(`widget type "${name}" was not saved: ${problems.join('; ')}`);
  return { name, renderer: b.renderer as Renderer, label: b.label as string | undefined, span: b.span as number | undefined, description: b.description as string, builtIn: false, shape: '' };
}
