/** What the plan view needs from a statement's text. Pure. */

/** Paths compared in a statement's WHERE clause (`age > 30` → `age`), in order, once each. */
export function wherePaths(sql: string): string[] {
  const where = /\bWHERE\b([\s\S]*?)(\bGROUP\s+BY\b|\bORDER\s+BY\b|\bLIMIT\b|\bOFFSET\b|$)/i.exec(
    sql,
  );
  if (!where?.[1]) return [];
  // Quoted strings hold no paths; drop them before looking.
  const text = where[1].replace(/'(?:[^']|'')*'/g, "''");
  const paths = new Set<string>();
  const compare =
    /([A-Za-z_][\w]*(?:(?:\.[A-Za-z_]\w*)|\[\d+\])*)\s*(?:=|!=|<>|<=|>=|<|>|\bIN\b|\bLIKE\b|\bIS\b|\bBETWEEN\b)/gi;
  for (const match of text.matchAll(compare)) {
    const path = match[1] as string;
    if (!/^(AND|OR|NOT|NULL|TRUE|FALSE)$/i.test(path)) paths.add(path);
  }
  return [...paths];
}
