/** The provider map's JSON Schemas (PUT/GET /api/config); validate.ts keeps the rules a schema cannot say. */
import { arr, bool, int, nullable, num, obj, openObj, str, oneOf, type Schema } from '../../http/schemas.js';
import { PROVIDER_TYPES } from './types.js';

const price = obj({ input: num('USD per million input tokens'), output: num('USD per million output tokens'), cachedInput: num() }, ['input', 'output']);

const providerFields: Record<string, Schema> = {
  type: oneOf(...PROVIDER_TYPES),
  baseUrl: { type: ['string', 'null'], description: 'the API root, e.g. http://127.0.0.1:11434/v1' },
  model: str('the model id the provider serves'),
  name: { type: ['string', 'null'], description: 'what defaultProvider and chat `provider` refer to; defaults to the type' },
  contextWindow: int('the context window in tokens; learned from the server when unset'),
  prices: { type: 'object', additionalProperties: price, description: 'price overrides by model id' },
};

export const providerInput = obj(
  { ...providerFields, newKey: str('an API key to store in the secret store (never echoed)'), clearKey: bool('remove the stored key'), hasKey: bool('ignored (what GET answers)') },
  ['type', 'model'],
);

export const embeddings = nullable(openObj('the embeddings endpoint behind search_code', { baseUrl: str(), model: str(), name: str('a provider whose key the endpoint uses'), newKey: str('the endpoint’s own key, stored as a secret (never echoed)'), clearKey: bool('remove the stored key'), local: bool('embed with a downloaded local model named by model (no endpoint, no key)') }));

export const configBody = obj({ providers: arr(providerInput), defaultProvider: { type: ['string', 'null'] }, embeddings }, ['providers']);

export const configView = obj(
  {
    providers: arr(obj({ ...providerFields, hasKey: bool('whether a key is stored') }, ['type', 'model', 'name', 'hasKey'], { open: true })),
    defaultProvider: { type: ['string', 'null'] },
    embeddings,
  },
  ['providers', 'defaultProvider', 'embeddings'],
);
