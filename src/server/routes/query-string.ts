/**
 * Query-string values arrive as text and are validated as text (the validator coerces
 * nothing), then read here: `true`/`false` flags and non-negative integers.
 */

/** Schema of a `true`/`false` flag. */
export const FLAG = { type: 'string', enum: ['true', 'false'] } as const;

/** Schema of a non-negative integer written in decimal. */
export const COUNT = { type: 'string', pattern: '^(0|[1-9][0-9]{0,8})$' } as const;

export function flag(value: string | undefined): boolean {
  return value === 'true';
}

export function count(value: string | undefined, fallback: number): number {
  return value === undefined ? fallback : Number(value);
}
