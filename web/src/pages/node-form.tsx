/**
 * A node's settings as a form, made from its type's config JSON Schema (GET /api/workflow-node-types):
 * text, numbers, switches and choices as such; lists one item a line; maps and free values (a
 * request body, a state value) as JSON or plain text. Required fields are marked; the engine's
 * check of a field stands under it.
 */
import { useSignal } from '@preact/signals';
import { Field } from '../fields';

export interface NodeType {
  type: string;
  description: string;
  config: { properties?: Record<string, any>; required?: string[] };
  branches: string[];
  trigger?: boolean;
  example?: unknown;
}

/** `maxTurns` -> "Max turns", `allowFailure` -> "Allow failure". */
const labelOf = (key: string) => key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase()).replace(/\b(Url|Ms)\b/g, (w) => (w === 'Url' ? 'URL' : '(ms)')).replace(/ [A-Z]/g, (w) => w.toLowerCase());
/** Strings that read better as a box of several lines. */
const LONG = new Set(['prompt', 'system', 'command', 'message', 'body', 'expr']);

export function ConfigForm({ schema, value, errors, onChange }: { schema: NodeType['config']; value: Record<string, unknown>; errors: Record<string, string>; onChange: (v: Record<string, unknown>) => void }) {
  const props = schema.properties ?? {};
  const keys = Object.keys(props);
  if (!keys.length) return <div class="muted small">This node has no settings.</div>;
  const set = (k: string, v: unknown) => {
    const next = { ...value };
    if (v === undefined) delete next[k];
    else next[k] = v;
    onChange(next);
  };
  return (
    <div class="config-form">
      {keys.map((k) => (
        <Field
          key={k}
          name={k}
          label={
            <>
              {labelOf(k)}
              {schema.required?.includes(k) && <span class="required" title="required"> *</span>}
            </>
          }
          error={{ fields: errors, other: null }}
          hint={props[k].description}
        >
          <Input name={k} schema={props[k]} value={value[k]} onChange={(v) => set(k, v)} />
        </Field>
      ))}
    </div>
  );
}

/** The control for one setting; `a` carries the id and descriptions the Field gives it. */
function Input({ name, schema, value, onChange, ...a }: { name: string; schema: any; value: unknown; onChange: (v: unknown) => void; id?: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }) {
  if (Array.isArray(schema.enum)) {
    // The same choice in two spellings (GET and get) is offered once.
    const choices = schema.enum.filter((c: string, i: number, all: string[]) => all.findIndex((x) => String(x).toLowerCase() === String(c).toLowerCase()) === i);
    return (
      <select {...a} value={value === undefined ? '' : String(value)} onChange={(e) => onChange((e.target as HTMLSelectElement).value || undefined)}>
        <option value="">default</option>
        {choices.map((c: string) => (
          <option value={c}>{c}</option>
        ))}
      </select>
    );
  }
  if (schema.type === 'boolean') return <input {...a} type="checkbox" checked={value === true} onChange={(e) => onChange((e.target as HTMLInputElement).checked || undefined)} />;
  if (schema.type === 'integer' || schema.type === 'number') {
    return <input {...a} inputMode="numeric" value={value === undefined ? '' : String(value)} onInput={(e) => onChange(numberOf((e.target as HTMLInputElement).value))} />;
  }
  if (schema.type === 'string') {
    const text = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
    const set = (e: Event) => onChange((e.target as HTMLInputElement).value === '' ? undefined : (e.target as HTMLInputElement).value);
    return LONG.has(name) ? <textarea {...a} class="code" rows={name === 'prompt' || name === 'system' ? 5 : 2} value={text} onInput={set} /> : <input {...a} class={/^(url|cwd|expr|key|secret)$/.test(name) ? 'mono' : ''} value={text} onInput={set} />;
  }
  if (schema.type === 'array' && schema.items?.type === 'string') {
    return (
      <textarea
        {...a}
        rows={3}
        placeholder="one a line"
        value={Array.isArray(value) ? value.join('\n') : ''}
        onInput={(e) => {
          const lines = (e.target as HTMLTextAreaElement).value.split('\n').map((l) => l.trim()).filter(Boolean);
          onChange(lines.length ? lines : undefined);
        }}
      />
    );
  }
  return <JsonInput a={a} value={value} objectOnly={schema.type === 'object'} onChange={onChange} />;
}

const numberOf = (s: string): unknown => (s.trim() === '' ? undefined : /^-?\d+(\.\d+)?$/.test(s.trim()) ? Number(s) : s);

/** A free value: JSON when it parses (an object, a number), else the text itself (a template). */
function JsonInput({ a, value, objectOnly, onChange }: { a: Record<string, unknown>; value: unknown; objectOnly: boolean; onChange: (v: unknown) => void }) {
  const text = useSignal(value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  const problem = useSignal<string | null>(null);
  return (
    <>
      <textarea
        {...a}
        class="code"
        rows={3}
        value={text.value}
        placeholder={objectOnly ? '{ }' : 'a value, JSON or text'}
        onInput={(e) => {
          text.value = (e.target as HTMLTextAreaElement).value;
          problem.value = null;
          if (!text.value.trim()) return onChange(undefined);
          try {
            onChange(JSON.parse(text.value));
          } catch (err) {
            if (objectOnly) problem.value = `not valid JSON yet: ${(err as Error).message}`;
            else onChange(text.value);
          }
        }}
      />
      {problem.value && <span class="field-error">{problem.value}</span>}
    </>
  );
}
