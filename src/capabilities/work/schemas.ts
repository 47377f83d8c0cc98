/** The shapes the work routes and the work tools share (one definition, two uses). */
import { any, arr, bool, nullable, num, obj, openObj, str, type Schema } from '../../http/schemas.js';

const fields = openObj('custom fields, as the kind declares them; null removes one');

export const itemInput: Record<string, Schema> = {
  body: str('markdown: the description (everything above the Activity heading)'),
  assignee: nullable(str('a name (one of the board members when it declares any); null unassigns')),
  labels: arr(str(), 'the labels (from the board\'s labels when it declares any)'),
  estimate: nullable(num('one of the board\'s estimates; null clears')),
  priority: nullable(str('one of the board\'s priorities; null clears')),
  rank: num('the order within a lane: lower comes first'),
  fields,
  parent: nullable(str('the key of a parent item on the same board; null clears')),
};

export const createProps: Record<string, Schema> = {
  kind: str('one of the board\'s kinds'),
  title: str('a short line'),
  status: str('a lane (default: the board\'s first lane)'),
  ...itemInput,
};

export const updateProps: Record<string, Schema> = {
  status: str('a lane of the board'),
  title: str('a short line'),
  ...itemInput,
  archived: bool('true moves the item to the archive, false restores it'),
};

export const filterProps: Record<string, Schema> = {
  status: str('only items in this lane'),
  kind: str('only items of this kind'),
  label: str('only items with this label'),
  assignee: str('only items assigned to this name'),
};

export const itemSchema = openObj('a work item: key, project, kind, title, status, assignee, labels, estimate, priority, rank, fields, archived, parent, created, updated, body, activity');
export const boardConfigBody = obj(
  {
    name: str('a display name'),
    prefix: str('the key prefix, e.g. "ENG"'),
    kinds: arr(any('a kind: "task" or {name, fields: {<field>: {type, required?, values?}}}'), 'the item kinds'),
    lanes: arr(obj({ name: str(), category: str('backlog, unstarted, started, completed or canceled') }, ['name', 'category']), 'the lanes, in board order'),
    priorities: arr(str(), 'lowest to highest'),
    estimates: arr(num(), 'the allowed points'),
    labels: arr(str(), 'declared labels (empty: any)'),
    members: arr(str(), 'declared assignees (empty: any)'),
  },
  [],
  { description: 'a board config; every setting left out comes from the default' },
);
