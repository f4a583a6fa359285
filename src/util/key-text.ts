/**
 * What a by-key path segment (`/collections/{c}/by/{field}/{value}`) stands for: the text,
 * and the scalar it spells. One home, so a node's lookup and a router's targeting agree.
 */

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** The values a by-key path text stands for: the string, and the scalar it spells. */
export function keyTextValues(text: string): unknown[] {
  const values: unknown[] = [text];
  if (text === 'null') values.push(null);
  else if (text === 'true') values.push(true);
  else if (text === 'false') values.push(false);
  else if (JSON_NUMBER.test(text) && Number.isFinite(Number(text))) values.push(Number(text));
  return values;
}
