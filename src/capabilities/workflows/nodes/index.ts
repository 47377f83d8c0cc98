/** Every node type the executor knows, by name. The executor knows node types only through this table. */
import type { NodeType } from '../types.js';
import { agentNode } from './agent.js';
import { commandNode } from './command.js';
import { conditionNode } from './condition.js';
import { gateNode } from './gate.js';
import { httpNode } from './http.js';
import { mapNode } from './map.js';
import { notifyNode } from './notify.js';
import { stateNode } from './state.js';
import { triggerCron } from './trigger-cron.js';
import { triggerManual } from './trigger-manual.js';
import { triggerWebhook } from './trigger-webhook.js';
import { waitNode } from './wait.js';
import { workflowNode } from './workflow.js';

export const NODE_TYPES: ReadonlyMap<string, NodeType> = new Map(
  [triggerManual, triggerWebhook, triggerCron, agentNode, commandNode, httpNode, gateNode, conditionNode, mapNode, workflowNode, stateNode, notifyNode, waitNode].map((t) => [t.type, t]),
);

export const nodeType = (name: string): NodeType | undefined => NODE_TYPES.get(name);
