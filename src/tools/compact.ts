/**
 * The compact form of a tool definition, for a prompt that cannot hold every tool in full: the
 * description's first sentence, and parameter descriptions dropped where the parameter's name
 * says it (the description repeats the name) or cut to their first clause. Types, enums and
 * required lists stay, so a call made from the compact form is as valid as one made from the full.
 */
import type { AnyTool, JsonSchema } from './types.js';
import { words } from './search.js';

/** The first sentence, cut at its first clause when it runs long (a list after a colon, a remark after a semicolon). */
export function firstSentence(text: string): string {
  const m = /^[\s\S]*?[.!?](?=\s|$)/.exec(text.trim());
  const sentence = m ? m[0] : text.trim();
  if (sentence.length <= 100) return sentence;
  const clause = /^.{10,}?(?=[:;]\s|\s\()/.exec(sentence);
  return clause ? `${clause[0]}.` : sentence.slice(0, 200);
}

function firstClause(text: string): string {
  return text.split(/[;:(]\s?|\.\s|,\s/)[0].trim().replace(/[;.,:]+$/, '');
}

function compactSchema(schema: unknown, name?: string): unknown {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = { ...(schema as Record<string, unknown>) };
  if (typeof out.description === 'string' && name !== undefined) {
    const nameWords = new Set(words(name));
    const says = words(out.description).some((w) => nameWords.has(w));
    const clause = firstClause(out.description);
    if (says || !clause) delete out.description;
    else out.description = clause;
  }
  if (out.properties && typeof out.properties === 'object') {
    out.properties = Object.fromEntries(Object.entries(out.properties as Record<string, unknown>).map(([k, v]) => [k, compactSchema(v, k)]));
  }
  if (out.items) out.items = compactSchema(out.items, name);
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((branch) => compactSchema(branch, name));
  }
  return out;
}

/** A copy of the tool with the compact description and parameters (it runs as the original: the registry looks it up by name). */
export function compactTool(tool: AnyTool): AnyTool {
  return { ...tool, description: firstSentence(tool.description), parameters: compactSchema(tool.parameters) as JsonSchema };
}
