/** POST /api/complete, /api/apply (always 200) and /api/inline-edit (docs/editor.md). */
import type { FastifyInstance } from 'fastify';
import { any, nullable, obj, oneOf, route, str } from '../../http/schemas.js';
import type { EditorService } from './service.js';

// The two editor routes answer every refusal with 200 (seed 000 §7.3), malformed bodies included,
// so their body schemas document the fields without making Fastify refuse them with a 400.
const lenient = (schema: Record<string, unknown>) => {
  const { type: _type, ...rest } = schema;
  return rest;
};
const completeBody = lenient(obj({ path: any('the file being edited (a virtual path)'), prefix: any('text before the cursor'), suffix: any('text after the cursor') }, [], { open: true }));
const applyBody = lenient(obj({ path: any('the file the snippet edits'), snippet: any('the edit, with "// ... existing code ..." marker lines for unchanged code'), base: any("the editor's buffer; the file on disk when left out") }, [], { open: true }));

export function editorRoutes(app: FastifyInstance, editor: EditorService): void {
  app.post(
    '/api/complete',
    { schema: route('editor', 'ghost-text completion at the cursor (15 s, 256 tokens, 10 lines); always 200', { body: completeBody, response: { 200: obj({ text: nullable(str()), reason: str('why there is no suggestion') }, ['text']) } }) },
    async (req) => editor.complete(req.body),
  );
  app.post(
    '/api/apply',
    {
      schema: route('editor', 'merge a lazy snippet into a file (nothing is written); always 200', {
        body: applyBody,
        response: { 200: obj({ merged: nullable(str()), tier: oneOf('splice', 'model'), reason: str('why nothing was merged') }, ['merged']) },
      }),
    },
    async (req) => editor.apply(req.body),
  );
  app.post(
    '/api/inline-edit',
    { schema: route('editor', 'rewrite a piece of code as instructed; answers the replacement code only', { body: obj({ code: str('the code to edit'), instruction: str('what to change'), lang: str('its language'), path: str('the file the code comes from: refused when a model may not see it') }, ['code', 'instruction']), response: { 200: obj({ code: str() }, ['code']) } }) },
    async (req) => editor.inlineEdit(req.body),
  );
}
