/**
 * The closest of some names to a mistyped one, for "did you mean" answers: optimal string alignment distance
 * (insertions, deletions, substitutions and swaps of neighbours, so "shpo" is one step from "shop"), allowing
 * one step: two already reach real distinct names ("constitutional" beside "unconstitutional"). (The CLI has
 * its own copy in bin/cli/suggest.mjs: it imports nothing from src/.)
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const allowed = 1;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === name) return undefined;
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= allowed && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}
