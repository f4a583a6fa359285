/** A non-negative integer option of a bench script (`--name N`); exits 2 on a bad value. */
export function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`--${name} takes a non-negative integer`);
    process.exit(2);
  }
  return value;
}
