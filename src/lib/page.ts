/**
 * Lists paged by name (projects, members, clients): ask for one item more than a page holds, then cut. The extra
 * item only tells that more follow; the page's last name is where the next page starts (`after`).
 */

/** How many items to ask for: one more than the page holds (null: the whole list). */
export function oneMore(limit: number | null): number | null {
  return limit === null ? null : limit + 1;
}

/** The page of `listed` (asked with oneMore) and the name the next page starts after, null on the last page. */
export function cutPage<T>(
  listed: readonly T[],
  limit: number | null,
  nameOf: (item: T) => string,
): { items: T[]; nextAfter: string | null } {
  if (limit === null || listed.length <= limit) return { items: [...listed], nextAfter: null };
  const items = listed.slice(0, limit);
  return { items, nextAfter: nameOf(items[items.length - 1]!) };
}
