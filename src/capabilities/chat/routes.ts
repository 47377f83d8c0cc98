/** Chat routes: thin adapters over the chat service (seed 000 §4.7). */
import type { FastifyInstance } from 'fastify';
import { any, arr, bool, int, obj, ok, oneOf, openObj, params, query, route, str } from '../../http/schemas.js';
import { parsePage } from './input.js';
import type { ChatService } from './service.js';

const sessionId = str('the session id: letters, digits, dots, dashes or underscores (not queue, mode or stop)', { minLength: 1 });
const mode = oneOf('ask', 'allow');
const turnStatus = oneOf('started', 'completed', 'stopped', 'failed', 'interrupted', 'max_turns');
const lastTurn = obj({ runId: str(), status: turnStatus, ts: int(), error: str('why the turn did not complete') }, ['runId', 'status', 'ts']);
const message = openObj('a message as clients show it', {
  id: str(),
  role: oneOf('user', 'assistant'),
  text: str(),
  ts: int(),
  runId: str(),
  status: oneOf('stopped', 'failed', 'interrupted', 'max_turns'),
  error: str(),
});
const modelChoice = obj({ provider: str('the provider name (absent: the default provider)'), model: str("the model id (absent: the provider's own model)") }, [], { description: "the session's own provider and model" });
const tag = 'chat';

/** `opened`: a client looked at its chats (a turn may follow): the engine warms the model SDK then. */
export function chatRoutes(app: FastifyInstance, chat: ChatService, opened: () => void = () => undefined): void {
  app.post(
    '/api/chat',
    {
      schema: route(tag, 'send a message: starts a turn, or queues it while the session is busy', {
        body: obj(
          {
            sessionId,
            message: str('the text to send'),
            context: any('extra context put before the message (a string or any JSON value)'),
            provider: { type: ['string', 'null'], description: 'a provider name from GET /api/config; with model, picked for the session (a message naming neither runs on the session’s pick)' },
            model: { type: ['string', 'null'], description: 'a model id on that provider (else its own model)' },
            agent: { type: ['string', 'null'], description: 'an agent name from GET /api/agents' },
            dashboard: { type: ['string', 'null'], description: 'a dashboard id from GET /api/dashboards: the turn can read and publish into it' },
            atlas: { type: ['string', 'null'], description: 'an atlas id from GET /api/atlas: its map joins the turn, with read_card and atlas_source' },
            images: arr(any('a data URL, an http(s) URL or {data, mediaType}')),
            permissionMode: mode,
          },
          ['sessionId', 'message'],
        ),
        response: { 202: ok({ queued: bool('true when the session was busy and the message waits'), id: str('the queued message id') }) },
        description: 'The reply streams as chat.* events on /events; GET /api/chat/<sessionId> shows the result, including a turn that failed (`lastTurn`).',
      }),
    },
    async (req, reply) => {
      const answer = await chat.send(req.body);
      return reply.code(202).send(answer);
    },
  );
  app.get(
    '/api/chat',
    { schema: route(tag, 'list the chat sessions, newest first', { response: { 200: obj({ sessions: arr(openObj('a session summary', { id: str(), title: str(), busy: bool(), messageCount: int() })) }, ['sessions']) } }) },
    async () => {
      opened();
      return chat.list();
    },
  );
  app.post(
    '/api/chat/stop',
    {
      schema: route(tag, 'stop the turn in flight; queued messages are handed back, not started', {
        body: obj({ sessionId }, ['sessionId']),
        response: { 202: ok({ unqueued: arr(obj({ id: str(), message: str() }, ['id', 'message'])) }) },
      }),
    },
    async (req, reply) => reply.code(202).send(chat.stop(req.body)),
  );
  app.put(
    '/api/chat/mode',
    {
      schema: route(tag, "set an existing session's permission mode", {
        body: obj({ sessionId, permissionMode: mode }, ['sessionId', 'permissionMode']),
        response: { 200: ok({ permissionMode: mode }) },
      }),
    },
    async (req) => {
      const b = req.body as { sessionId: string; permissionMode: string };
      return chat.setMode(b.sessionId, b.permissionMode);
    },
  );
  app.put(
    '/api/chat/model',
    {
      schema: route(tag, "pick an existing session's provider and model for its next turns (null: the default provider, the provider's own model)", {
        body: obj({ sessionId, provider: { type: ['string', 'null'], description: 'a provider name from GET /api/config' }, model: { type: ['string', 'null'], description: 'a model id on that provider' } }, ['sessionId']),
        response: { 200: ok({ modelChoice: modelChoice }) },
      }),
    },
    async (req) => chat.setModel(req.body),
  );
  app.put(
    '/api/chat/queue',
    {
      schema: route(tag, 'edit the text of a queued message', {
        body: obj({ sessionId, id: str('the queued message id from chat.queued'), message: str('the new text') }, ['sessionId', 'id', 'message']),
        response: { 200: ok() },
      }),
    },
    async (req) => chat.editQueued(req.body),
  );
  app.delete(
    '/api/chat/queue',
    {
      schema: route(tag, 'cancel a queued message', {
        querystring: query({ session: 'the session id', sessionId: 'the session id (same as session)', id: 'the queued message id from chat.queued' }),
        response: { 200: ok() },
      }),
    },
    async (req) => {
      const q = req.query as { session?: string; sessionId?: string; id?: string };
      return chat.cancelQueued(q.session ?? q.sessionId, q.id);
    },
  );
  app.get(
    '/api/chat/:sessionId',
    {
      schema: route(tag, "a session's messages and how its last turn ended; ?limit= pages them (newest first page, ?before= an older one); ?view=full adds transcript, queue and selection", {
        params: params({ sessionId: 'the session id' }),
        querystring: query({
          view: 'full for the whole record; anything else is the short view',
          limit: 'messages in a page (1 to 500): the newest ones, or those just before `before`; without it, every message',
          before: 'a message id from an earlier page: the page ends just before it',
        }),
        response: {
          200: obj(
            {
              messages: arr(message),
              hasMore: bool('with limit: whether older messages remain (page back with before=<the first message id>)'),
              busy: bool(),
              lastTurn,
              modelChoice,
              waiting: arr(
                obj({ callId: str(), tool: str(), display: str('what the prompt shows (masked)') }, ['callId', 'tool', 'display']),
                'permission prompts of the turn in flight that wait on a person (POST /api/permissions/resolve answers them); absent when none',
              ),
              id: str(),
              title: str(),
              transcript: arr(openObj('a stored record')),
              runId: str(),
              queued: arr(obj({ id: str(), message: str(), queuedAt: int() }, ['id', 'message', 'queuedAt'])),
              permissionMode: mode,
              contextTokens: int(),
              window: obj(
                {
                  contextWindow: int('tokens'),
                  contextWindowSource: oneOf('config', 'server', 'default'),
                  toolTokens: int('tokens of the tool definitions the first request carries'),
                  toolBudget: int('tokens the tool definitions may take: toolBudgetShare of the window'),
                  tokenizer: oneOf('model', 'cl100k', 'estimate'),
                  deferredTools: int('tools not sent, found through tool_search (when not all fit)'),
                  note: str('set when not every tool fits the budget: how many wait behind tool_search'),
                  warning: str('set when even the short tool list passes the budget'),
                },
                ['contextWindow', 'contextWindowSource', 'toolTokens'],
              ),
            },
            ['messages', 'busy'],
            { open: true },
          ),
        },
      }),
    },
    async (req) => {
      const { sessionId } = req.params as { sessionId: string };
      const { view, ...page } = req.query as { view?: string; limit?: string; before?: string };
      opened();
      return chat.get(sessionId, view === 'full', parsePage(page));
    },
  );
  app.put(
    '/api/chat/:sessionId',
    {
      schema: route(tag, 'rename a session', {
        params: params({ sessionId: 'the session id' }),
        body: obj({ title: str('the new title') }, ['title']),
        response: { 200: ok({ title: str() }) },
      }),
    },
    async (req) => {
      const { sessionId } = req.params as { sessionId: string };
      return chat.rename(sessionId, req.body);
    },
  );
}
