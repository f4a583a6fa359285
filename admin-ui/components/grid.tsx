/**
 * The one importer of AG Grid (Community): a virtualised grid of documents, either over rows
 * in memory (a query's result) or over a datasource that pages on the server (a collection,
 * through the `after` cursor). Colours come from the page's CSS variables, so the grid follows
 * the light or dark theme. Long values are cut in the cell; the tooltip and the row's
 * document show them whole.
 */

'use client';

import {
  AllCommunityModule,
  type ColDef,
  type GridApi,
  type IDatasource,
  ModuleRegistry,
  themeQuartz,
} from 'ag-grid-community';
import { AgGridReact } from 'ag-grid-react';
import { useMemo } from 'react';
import type { Document as Doc } from 'docdb/client';
import { idOf } from '@/lib/api';
import { cellText, showValue, valueAt } from '@/lib/paths';

ModuleRegistry.registerModules([AllCommunityModule]);

const theme = themeQuartz.withParams({
  backgroundColor: 'var(--bg)',
  foregroundColor: 'var(--fg)',
  headerBackgroundColor: 'var(--bg-2)',
  borderColor: 'var(--border)',
  accentColor: 'var(--accent)',
  chromeBackgroundColor: 'var(--bg-2)',
  fontFamily: 'inherit',
  fontSize: 13,
});

/** Characters a tooltip shows; past it, open the document. */
const TOOLTIP_CHARS_MAX = 2000;

export type { GridApi };

interface GridProps {
  columns: string[];
  /** Rows in memory, or… */
  rows?: Doc[];
  /** …a datasource paging on the server (the infinite row model), with its block size. */
  datasource?: IDatasource;
  blockSize?: number;
  onOpen?: (doc: Doc) => void;
  onReady?: (api: GridApi) => void;
  label: string;
}

export function DocGrid({
  columns,
  rows,
  datasource,
  blockSize,
  onOpen,
  onReady,
  label,
}: GridProps) {
  const columnDefs = useMemo<ColDef<Doc>[]>(
    () =>
      columns.map((path) => ({
        headerName: path,
        colId: path,
        valueGetter: (p) => valueAt(p.data, path),
        valueFormatter: (p) => cellText(p.value),
        tooltipValueGetter: (p) => showValue(p.value).slice(0, TOOLTIP_CHARS_MAX),
        sortable: false,
        resizable: true,
        minWidth: path === '_id' ? 300 : 110,
      })),
    [columns],
  );
  const paging = datasource !== undefined;
  return (
    <section className="grid-box" aria-label={label}>
      <AgGridReact<Doc>
        theme={theme}
        columnDefs={columnDefs}
        {...(paging
          ? {
              rowModelType: 'infinite' as const,
              datasource,
              cacheBlockSize: blockSize,
              maxConcurrentDatasourceRequests: 1,
              infiniteInitialRowCount: 1,
            }
          : { rowData: rows ?? [] })}
        getRowId={(p) => String(p.data._id ?? JSON.stringify(p.data))}
        onRowClicked={(event) => event.data && onOpen?.(event.data)}
        // The keyboard's way to open a row: Enter on any of its cells.
        onCellKeyDown={(event) => {
          const key = (event.event as KeyboardEvent | null | undefined)?.key;
          if (key === 'Enter' && event.data) onOpen?.(event.data);
        }}
        onGridReady={(event) => onReady?.(event.api)}
        // Few columns spread over the width; many keep their minimum and scroll sideways.
        autoSizeStrategy={{ type: 'fitGridWidth' }}
        tooltipShowDelay={400}
        enableCellTextSelection
      />
    </section>
  );
}

/**
 * A datasource over `GET /collections/{name}` that pages with the `after` cursor: each block
 * starts after the last `_id` of the block before, so a jump far down walks forward from the
 * nearest block whose cursor is known.
 */
export function cursorDatasource(
  list: (limit: number, after?: string) => Promise<{ documents: Doc[] }>,
  blockSize: number,
  onError: (error: Error) => void,
): IDatasource {
  // The cursor (the previous block's last _id) of each block start row known so far.
  const cursors = new Map<number, string | undefined>([[0, undefined]]);
  return {
    getRows: async (params) => {
      try {
        let at = Math.max(...[...cursors.keys()].filter((row) => row <= params.startRow));
        let after = cursors.get(at);
        for (;;) {
          const { documents } = await list(blockSize, after);
          const full = documents.length === blockSize;
          if (full) cursors.set(at + blockSize, idOf(documents.at(-1)));
          if (at >= params.startRow || !full) {
            const rows = at === params.startRow ? documents : [];
            params.successCallback(rows, full ? -1 : at + documents.length);
            return;
          }
          at += blockSize;
          after = cursors.get(at);
        }
      } catch (error) {
        params.failCallback();
        onError(error as Error);
      }
    },
  };
}
