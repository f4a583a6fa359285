/**
 * Hints a syntax error adds when the text it found is a keyword or nearly one: a keyword
 * standing where a name belongs (`FROM order`) is told to go in double quotes, and an
 * unknown word one or two typos from a keyword (`SELEC`, `FORM`) is asked whether it meant
 * that keyword. Pure.
 */

import { SQL_KEYWORDS } from '../ast/index.js';

/**
 * Edit distance with adjacent transpositions (optimal string alignment), so `FORM` is one
 * step from `FROM`, as a typist's swap is one slip.
 */
function typos(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The keyword `word` is most likely a slip for, or undefined: one typo for words of three or
 * four letters, two from five letters on (shorter words are too often other names). Keywords
 * the error `expected` are preferred, so `FORM` after a select list is FROM, not FOR-anything.
 */
export function nearestKeyword(word: string, expected: string): string | undefined {
  const upper = word.toUpperCase();
  if (upper.length < 3 || SQL_KEYWORDS.includes(upper)) return undefined;
  const allowed = upper.length >= 5 ? 2 : 1;
  let best: { keyword: string; score: number } | undefined;
  for (const keyword of SQL_KEYWORDS) {
    // Lengths further apart than the typos allowed cannot be that close: skipped, so a long
    // word is not measured against every keyword (a 1M-character word took 16 s).
    if (Math.abs(upper.length - keyword.length) > allowed) continue;
    const distance = typos(upper, keyword);
    if (distance > allowed) continue;
    // Half a typo's worth of preference for a keyword the message names.
    const score = distance - (new RegExp(`\\b${keyword}\\b`).test(expected) ? 0.5 : 0);
    if (best === undefined || score < best.score) best = { keyword, score };
  }
  return best?.keyword;
}

/** The hint for a keyword found where a name was expected. */
export function keywordAsNameHint(word: string): string {
  return `'${word}' is a keyword; write "${word}" in double quotes to use it as a name`;
}
