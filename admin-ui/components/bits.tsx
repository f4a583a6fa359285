/** Small pieces the screens share: an error box, a collection picker, number formats. */

'use client';

import { useEffect } from 'react';
import { client } from '@/lib/api';
import { useLoad } from '@/lib/use-load';

export function ErrorBox({ error }: { error: Error | string | null | undefined }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {typeof error === 'string' ? error : error.message}
    </p>
  );
}

/** A select over GET /collections; picks the first one when none is chosen yet. */
export function CollectionPicker({
  value,
  onChange,
  refreshKey,
}: {
  value: string;
  onChange: (name: string) => void;
  refreshKey?: number;
}) {
  const names = useLoad(() => client().collections(), refreshKey);
  const first = names.data?.[0];
  useEffect(() => {
    if (!value && first) onChange(first);
  }, [value, first, onChange]);
  return (
    <>
      <label>
        Collection
        <select value={value} onChange={(e) => onChange(e.target.value)}>
          {value && !names.data?.includes(value) && <option value={value}>{value}</option>}
          {names.data?.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      {names.data?.length === 0 && <span className="notice">No collections yet.</span>}
      <ErrorBox error={names.error} />
    </>
  );
}

export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

export function formatDuration(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return d > 0 ? `${d}d ${h}h` : h > 0 ? `${h}h ${m}m` : m > 0 ? `${m}m ${s}s` : `${s}s`;
}

/** Saves text as a file the browser downloads. */
export function download(name: string, pieces: string | string[], type: string): void {
  const url = URL.createObjectURL(
    new Blob(typeof pieces === 'string' ? [pieces] : pieces, { type }),
  );
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
