/**
 * Set-up forms (a connection, a dashboard, an MCP server) show the engine's own sentence next to the
 * field it is about. Its sentences name the field first (`host must not be empty; send ...`) or quote
 * it (`a SQLite connection needs "path": ...`); the shape the API wants (`; send a JSON object {...}`)
 * is what the form already is, so that tail is left off.
 */
import { cloneElement, isValidElement, type ComponentChildren, type VNode } from 'preact';
import { useId } from 'preact/hooks';

/** An engine refusal split by field: the sentences about a field, and what names none. */
export interface FormError {
  fields: Record<string, string>;
  other: string | null;
}

/** The engine's sentence without the request shape it appends for API clients. */
export const plainSentence = (s: string) => s.replace(/; send (a JSON object|query parameters)\b.*$/s, '').replace(/; this route takes .*$/s, '');

/** Which of `fields` the sentence is about, or null when it names none of them. `aliases`: a sentence start that means a field. */
export function fieldOf(sentence: string, fields: string[], aliases: Record<string, string> = {}): string | null {
  for (const [start, field] of Object.entries(aliases)) if (sentence.startsWith(start)) return field;
  const first = /^([A-Za-z][\w.]*)\b/.exec(sentence)?.[1];
  const tail = first?.split('.').pop();
  if (first && fields.includes(first)) return first;
  if (tail && fields.includes(tail) && first!.includes('.')) return tail;
  for (const m of sentence.matchAll(/"([A-Za-z][\w]*)"/g)) if (fields.includes(m[1])) return m[1];
  return null;
}

/**
 * The refusal as a form shows it. A list of problems (`... was not saved; fix: (1) ...; (2) ...`)
 * puts each next to its own field.
 */
export function formError(e: unknown, fields: string[], aliases: Record<string, string> = {}): FormError {
  const message = plainSentence(e instanceof Error ? e.message : String(e));
  const list = /^(.*?); fix: \(1\) (.*)$/s.exec(message);
  const items = list ? list[2].split(/; \(\d+\) /) : [message];
  const out: FormError = { fields: {}, other: null };
  const rest: string[] = [];
  for (const item of items) {
    const f = fieldOf(item, fields, aliases);
    if (f) out.fields[f] = out.fields[f] ? `${out.fields[f]}; ${item}` : item;
    else rest.push(item);
  }
  if (rest.length) out.other = list ? `${list[1]}: ${rest.join('; ')}` : rest.join('; ');
  return out;
}

/**
 * A labelled field with the engine's sentence under it when the sentence is about it. The control
 * (the one child) is named by the label alone and described by the hint or the sentence.
 */
export function Field({ label, name, error, hint, children }: { label: ComponentChildren; name: string; error?: FormError | null; hint?: ComponentChildren; children: VNode }) {
  const id = useId();
  const mine = error?.fields[name] ?? null;
  const control = isValidElement(children) ? cloneElement(children, { id, 'aria-describedby': `${id}-note`, 'aria-invalid': mine ? true : undefined }) : children;
  return (
    <div class={`field ${mine ? 'invalid' : ''}`} data-field={name}>
      <label class="field-label" for={id}>
        {label}
      </label>
      {control}
      {hint && !mine && (
        <span class="field-hint muted small" id={`${id}-note`}>
          {hint}
        </span>
      )}
      {mine && (
        <span class="field-error" role="alert" id={`${id}-note`}>
          {mine}
        </span>
      )}
    </div>
  );
}

/** The sentence that names no field, at the foot of the form. */
export const FormFoot = ({ error }: { error?: FormError | null }) => (error?.other ? <div class="error-line" role="alert">{error.other}</div> : null);
