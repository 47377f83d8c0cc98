/** POST /api/complete, /api/apply (always 200) and /api/inline-edit (docs/editor.md). */
import type { FastifyInstance } from 'fastify';
import { any, nullable, obj, oneOf, route, str } from '../../http/schemas.js';
import { jsonSyntaxReason } from '../../kernel/errors.js';
import type { EditorService } from './service.js';

// The two editor routes answer every refusal with 200 (seed 000 §7.3), malformed bodies included,
// so their body schemas document the fields without making the validator refuse them with a 400.
const lenient = (schema: Record<string, unknown>) => {
  const { type: _type, ...rest } = schema;
  return rest;
};
const completeBody = lenient(obj({ path: any('the file being edited (a virtual path)'), prefix: any('text before the cursor'), suffix: any('text after the cursor') }, [], { open: true }));
const applyBody = lenient(obj({ path: any('the file the snippet edits'), snippet: any('the edit, with "// ... existing code ..." marker lines for unchanged code'), base: any("the editor's buffer; the file on disk when left out") }, [], { open: true }));

/** A body the two always-200 routes could not read as JSON, and why: answered as their refusal. */
class NotJson {
  constructor(private readonly problem: string) {}
  reason(shape: string): string {
    return `${this.problem}; send a JSON object ${shape} with the header content-type: application/json`;
  }
}

/** Any body, any content type: the JSON value when it is JSON, else a NotJson saying why not. */
function readBody(contentType: string | undefined, text: string): unknown {
  if (!text.trim()) return undefined;
  const type = String(contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') return new NotJson(`the body is not JSON (content type ${type ? `"${type}"` : 'missing'})`);
  try {
    return JSON.parse(text);
  } catch (err) {
    return new NotJson(`the body is not valid JSON (${jsonSyntaxReason(err)})`);
  }
}

export function editorRoutes(app: FastifyInstance, editor: EditorService): void {
  // Seed 000 §7 special 3: complete and apply answer 200 to any body, one that is not JSON too, so
  // they read bodies in a context of their own (no 400 for malformed JSON, no 415 for a form).
  app.register(async (always200) => {
    always200.removeAllContentTypeParsers();
    always200.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => done(null, readBody(req.headers['content-type'], String(body))));
    always200.post(
      '/api/complete',
      { schema: route('editor', 'ghost-text completion at the cursor (15 s, 256 tokens, 10 lines); always 200', { body: completeBody, anyBody: true, response: { 200: obj({ text: nullable(str()), reason: str('why there is no suggestion') }, ['text']) } }) },
      async (req) => (req.body instanceof NotJson ? { text: null, reason: req.body.reason('{path, prefix, suffix}') } : editor.complete(req.body)),
    );
    always200.post(
      '/api/apply',
      {
        schema: route('editor', 'merge a lazy snippet into a file (nothing is written); always 200', {
          body: applyBody,
          anyBody: true,
          response: { 200: obj({ merged: nullable(str()), tier: oneOf('splice', 'model'), reason: str('why nothing was merged') }, ['merged']) },
        }),
      },
      async (req) => (req.body instanceof NotJson ? { merged: null, reason: req.body.reason('{path, snippet, base?}') } : editor.apply(req.body)),
    );
  });
  app.post(
    '/api/inline-edit',
    { schema: route('editor', 'rewrite a piece of code as instructed; answers the replacement code only', { body: obj({ code: str('the code to edit'), instruction: str('what to change'), lang: str('its language'), path: str('the file the code comes from: refused when a model may not see it') }, ['code', 'instruction']), response: { 200: obj({ code: str() }, ['code']) } }) },
    async (req) => editor.inlineEdit(req.body),
  );
}
