/** The agent definition's JSON Schemas (PUT /api/agents/<name> and the answers); validate.ts keeps the rules a schema cannot say. */
import { arr, obj, openObj, str, type Schema } from '../../http/schemas.js';
import { EFFORT_VALUES } from './types.js';

const orNull = (s: Schema): Schema => ({ ...s, type: [s.type as string, 'null'] });

const fields: Record<string, Schema> = {
  description: str('one sentence saying what the agent is for (models choosing whom to delegate to read it)'),
  system: str('the system prompt (markdown)'),
  model: orNull(str('a model id on the default provider, or a configured provider name')),
  tools: orNull(arr(str(), 'exact tool names; omit for every tool')),
  maxTurns: orNull({ type: 'integer', minimum: 1 }),
  memory: orNull({ type: 'boolean', description: 'give the agent its own memory scope' }),
  vault: orNull(str('a vault mount name')),
  group: { type: ['string', 'null'], description: 'a group in the agent list' },
  skills: orNull(arr(str(), 'skills this agent may load; omit for all')),
  temperature: orNull({ type: 'number', minimum: 0, maximum: 2 }),
  topP: orNull({ type: 'number', exclusiveMinimum: 0, maximum: 1 }),
  maxTokens: orNull({ type: 'integer', minimum: 1 }),
  seed: orNull({ type: 'integer' }),
  effort: { enum: [...EFFORT_VALUES, null] },
  extraBody: orNull({ type: 'object', description: 'extra fields sent with every model request' }),
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
export const agentOrder = obj({ groups: arr(str()), agents: arr(str()) }, [], { open: true });
