/**
 * The relay and the phone's handshake and approvals (seed §4.20). The guard refuses /api/relay/* to
 * the mobile token; the relay policy refuses it to paired phones (policy.ts).
 */
import type { FastifyInstance } from 'fastify';
import { arr, bool, int, noBody, nullable, obj, ok, oneOf, openObj, params, route, says, str } from '../../http/schemas.js';
import type { RelayService } from './service.js';

const device = obj({ id: str(), name: str(), pairedAt: int(), lastSeenAt: nullable(int()) }, ['id', 'name', 'pairedAt', 'lastSeenAt']);
const status = obj(
  {
    enabled: bool(),
    state: oneOf('off', 'connecting', 'connected'),
    engine: str('the engine\'s random topic id (the broker user name of docs/relay.md)'),
    url: nullable(str('the broker\'s WebSocket URL')),
    app: nullable(str('where the phone loads /m/ from (null: the engine\'s own address)')),
    remoteStart: bool('whether a paired phone may start work'),
    error: nullable(str()),
    pairing: nullable(obj({ blob: str('the one-time pairing code'), link: str('the QR code\'s link: the /m/ page with the code in its fragment') }, ['blob', 'link'])),
    devices: arr(device),
    refused: obj({ tampered: int(), replayed: int(), malformed: int() }, ['tampered', 'replayed', 'malformed']),
  },
  ['enabled', 'state', 'engine', 'url', 'app', 'remoteStart', 'error', 'pairing', 'devices', 'refused'],
);
const approval = obj(
  {
    kind: oneOf('gate', 'permission'),
    id: str('the gate key or the prompt\'s call id'),
    runId: nullable(str()),
    title: str('what the person reads'),
    since: int(),
    resolve: openObj('the route that answers it and the body fields naming it: {method, path, body}'),
    detail: openObj(),
  },
  ['kind', 'id', 'runId', 'title', 'since', 'resolve', 'detail'],
);

export function relayRoutes(app: FastifyInstance, relay: RelayService): void {
  app.get('/api/relay', { schema: route('relay', 'relay status, the pairing code while on, paired phones (not for the mobile token)', { response: { 200: status } }) }, async () => relay.status());

  app.post(
    '/api/relay/enable',
    {
      schema: route('relay', 'turn the outbound connector on, to the broker at url (kept in relay.json)', {
        body: obj(
          {
            url: says(str('the broker\'s WebSocket address, such as wss://broker.example.com/mqtt'), '{field} must be the broker\'s WebSocket address, such as "wss://broker.example.com/mqtt"'),
            app: nullable(str('the https:// address the phone loads /m/ from; default: the engine\'s own')),
          },
          ['url'],
        ),
        response: { 200: status },
      }),
    },
    async (req) => relay.enable(req.body as { url: string; app?: string | null }),
  );

  app.post('/api/relay/disable', { schema: route('relay', 'turn the connector off (paired phones stay paired)', { body: noBody, response: { 200: status } }) }, async () => relay.disable());

  app.post(
    '/api/relay/remote-start',
    {
      schema: route('relay', 'whether a paired phone may start work (off: it may approve and stop)', {
        body: obj({ enabled: says(bool(), '{field} must be true or false') }, ['enabled']),
        response: { 200: ok({ remoteStart: bool() }) },
      }),
    },
    async (req) => ({ ok: true, remoteStart: await relay.setRemoteStart((req.body as { enabled: boolean }).enabled) }),
  );

  app.post<{ Params: { sid: string } }>(
    '/api/relay/devices/:sid/unpair',
    { schema: route('relay', 'forget a paired phone (and its push subscription); its stream closes at once', { params: params({ sid: 'the device id from GET /api/relay' }), body: noBody, response: { 200: ok() } }) },
    async (req) => {
      await relay.unpair(req.params.sid);
      return { ok: true };
    },
  );

  app.get(
    '/api/mobile/session',
    {
      schema: route('mobile', 'the phone\'s handshake: the engine, how the phone reaches it, what it may do', {
        response: {
          200: obj(
            { engine: str(), version: str(), via: oneOf('relay', 'direct'), device: nullable(device), remoteStart: bool(), approvals: int('how many things wait on a person') },
            ['engine', 'version', 'via', 'device', 'remoteStart', 'approvals'],
          ),
        },
      }),
    },
    async (req) => relay.session(req.headers),
  );

  app.get(
    '/api/mobile/approvals',
    { schema: route('mobile', 'everything waiting on a person, oldest first: gates and permission prompts', { response: { 200: obj({ approvals: arr(approval) }, ['approvals']) } }) },
    async () => ({ approvals: relay.approvals() }),
  );
}
