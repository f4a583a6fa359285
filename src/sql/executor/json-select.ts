/**
 * A SELECT answered with rows as JSON text where that spares decoding them (see
 * SelectOptions' `rows`): a point lookup (select.ts), and a plain SELECT whose access path
 * decodes only the paths it reads (a scan, an index lookup or range), whose kept rows are read
 * back by id as JSON text, as a stream reads them (stream.ts). Every other plan answers as
 * runSelect does.
 */

import type { Document, StoreReader } from '../../storage/index.js';
import type { JsonText } from '../../types/index.js';
import { accessOf, bindPlan, type SelectPlan } from '../planner/index.js';
import { runSelect, type SelectOptions, type SelectResult } from './select.js';
import { streamSelect } from './stream.js';

/** Runs a planned SELECT with its parameters, rows as JSON text where they can be. */
export function runSelectJson(
  reader: StoreReader,
  plan: SelectPlan,
  params: readonly unknown[],
  options: Omit<SelectOptions, 'rows'> = {},
): SelectResult<Document | JsonText> {
  const json = { ...options, rows: 'json' } as const;
  // Binding changes an access path's keys, or turns a lookup into a scan, never what it
  // decodes: the plan as made says it, without binding twice. A lookup on a unique index
  // may be the point lookup, which reads its one document as text itself (select.ts).
  const access = accessOf(plan.root);
  const point = access.kind === 'indexLookup' && access.index.unique;
  if (access.selection === undefined || point) return runSelect(reader, plan, params, json);
  // One synchronous read of the committed state: the reader itself stands in for a snapshot.
  const snapshot = {
    getBody: reader.getBody.bind(reader),
    getJson: reader.getJson.bind(reader),
    release: () => {},
  };
  const streamed = streamSelect(reader, plan, params, snapshot, json);
  return {
    documents: [...streamed.documents],
    plan: streamed.plan,
    access: bindPlan(plan, params).access,
    ...(streamed.sortKeys && { sortKeys: streamed.sortKeys }),
  };
}
