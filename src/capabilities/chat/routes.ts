/** Chat routes: thin adapters over the chat service (seed 000 §4.7). */
import type { FastifyInstance } from 'fastify';
import type { ChatService } from './service.js';

export function chatRoutes(app: FastifyInstance, chat: ChatService): void {
  app.post('/api/chat', async (req, reply) => {
    const answer = await chat.send(req.body);
    return reply.code(202).send(answer);
  });
  app.get('/api/chat', async () => chat.list());
  app.post('/api/chat/stop', async (req, reply) => reply.code(202).send(chat.stop(req.body)));
  app.put('/api/chat/mode', async (req) => {
    const b = (req.body ?? {}) as { sessionId?: unknown; permissionMode?: unknown };
    return chat.setMode(b.sessionId, b.permissionMode);
  });
  app.put('/api/chat/queue', async (req) => chat.editQueued(req.body));
  app.delete('/api/chat/queue', async (req) => {
    const q = req.query as { session?: unknown; sessionId?: unknown; id?: unknown };
    return chat.cancelQueued(q.session ?? q.sessionId, q.id);
  });
  app.get('/api/chat/:sessionId', async (req) => {
    const { sessionId } = req.params as { sessionId: string };
    const { view } = req.query as { view?: string };
    return chat.get(sessionId, view === 'full');
  });
  app.put('/api/chat/:sessionId', async (req) => {
    const { sessionId } = req.params as { sessionId: string };
    return chat.rename(sessionId, req.body);
  });
}
