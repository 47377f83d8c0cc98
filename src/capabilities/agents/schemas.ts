/** The agent definition's JSON Schemas (PUT /api/agents/<name> and the answers); validate.ts keeps the rules a schema cannot say. */
import { arr, obj, openObj, says, str, type Schema } from '../../http/schemas.js';
import { EFFORT_VALUES } from './types.js';

const orNull = (s: Schema): Schema => ({ ...s, type: [s.type as string, 'null'] });

const fields: Record<string, Schema> = {
  description: str('one sentence saying what the agent is for (models choosing whom to delegate to read it)'),
  system: str('the system prompt (markdown)'),
  model: orNull(str('a model id on the default provider, or a configured provider name')),
  tools: orNull(arr(str(), 'exact tool names; omit for every tool')),
  maxTurns: says(orNull({ type: 'integer', minimum: 1 }), '{field} must be a whole number of at least 1'),
  memory: says(orNull({ type: 'boolean', description: 'give the agent its own memory scope' }), '{field} must be true or false'),
  vault: orNull(str('a vault mount name')),
  group: { type: ['string', 'null'], description: 'a group in the agent list' },
  skills: orNull(arr(str(), 'skills this agent may load; omit for all')),
  temperature: says(orNull({ type: 'number', minimum: 0, maximum: 2 }), '{field} must be a number from 0 to 2'),
  topP: says(orNull({ type: 'number', exclusiveMinimum: 0, maximum: 1 }), '{field} must be a number greater than 0 and at most 1'),
  maxTokens: says(orNull({ type: 'integer', minimum: 1 }), '{field} must be a whole number of at least 1'),
  seed: says(orNull({ type: 'integer' }), '{field} must be a whole number'),
  effort: says({ enum: [...EFFORT_VALUES, null] }, `{field} must be one of ${EFFORT_VALUES.join(', ')}`),
  extraBody: says(orNull({ type: 'object', description: 'extra fields sent with every model request' }), '{field} must be a JSON object (extra fields sent with every model request)'),
};

export const agentBody = obj({ name: str('optional; must equal the name in the URL'), ...fields }, ['description']);

export const agentDefinition = obj({ name: str(), ...fields, warnings: arr(str(), 'what the engine adjusted or ignored reading a hand-written file') }, ['name', 'description', 'system'], { open: true });

export const agentSummary = openObj('a row of the agent list', {
  name: str(),
  description: str(),
  memory: { type: 'boolean' },
  vault: { type: ['string', 'null'] },
  group: { type: ['string', 'null'] },
  model: { type: ['string', 'null'] },
  tools: { type: ['array', 'null'], items: str() },
});

/** Open on purpose: the service answers an agent definition sent here by mistake with a better sentence. */
const names = says(arr(str()), '{field} must be an array of strings');
export const agentOrder = obj({ groups: names, agents: names }, [], { open: true });
