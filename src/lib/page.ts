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

/** Items one read of a whole list asks for at a time: no single call answers more, however long the list. */
export const READ_PER_CALL = 1_000;

/**
 * A page of a list read by name through `read(limit, after)`: `limit` items and where the next page starts, or, when
 * `limit` is null, every item after `after`, read READ_PER_CALL at a time, so the object that holds the list (the
 * deployment's one directory, for members and organizations) never answers all of it in one call.
 */
export async function pageByName<T>(
  read: (limit: number, after: string | null) => Promise<readonly T[]>,
  page: { limit: number | null; after: string | null },
  nameOf: (item: T) => string,
): Promise<{ items: T[]; nextAfter: string | null }> {
  if (page.limit !== null) return cutPage(await read(page.limit + 1, page.after), page.limit, nameOf);
  const items: T[] = [];
  let after = page.after;
  for (;;) {
    const batch = await read(READ_PER_CALL, after);
    items.push(...batch);
    if (batch.length < READ_PER_CALL) return { items, nextAfter: null };
    after = nameOf(batch[batch.length - 1]!);
  }
}
