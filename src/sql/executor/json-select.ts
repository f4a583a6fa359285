/**
 * A SELECT answered with rows as JSON text where that spares decoding them (see
 * SelectOptions' `rows`): a point lookup (select.ts), and a plain SELECT over a collection
 * scan that decodes only the paths it reads, whose kept rows are read back by id as JSON text,
 * as a stream reads them (stream.ts). Every other plan answers as runSelect does.
 */

import type { Document, StoreReader } from '../../storage/index.js';
import type { JsonText } from '../../types/index.js';
import { accessOf, type SelectPlan } from '../planner/index.js';
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
  // Binding never turns a scan into anything else (only an index lookup into a scan), so
  // the plan as made says whether it scans, without binding it twice.
  const access = accessOf(plan.root);
  if (access.kind !== 'scan' || access.selection === undefined) {
    return runSelect(reader, plan, params, json);
  }
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
    access,
    ...(streamed.sortKeys && { sortKeys: streamed.sortKeys }),
  };
}
