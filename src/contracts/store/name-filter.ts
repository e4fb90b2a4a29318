/** The WHERE clause of a list of projects by name: only those in `only`, only those after `after`, when given. */
export function projectNameFilter(
  column: string,
  only: readonly string[] | null,
  after: string | null,
): { where: string; bindings: SqlStorageValue[] } {
  const conditions = [
    ...(only ? [`${column} IN (SELECT value FROM json_each(?))`] : []),
    ...(after !== null ? [`${column} > ?`] : []),
  ];
  return {
    where: conditions.length ? `WHERE ${conditions.join(" AND ")}` : "",
    bindings: [...(only ? [JSON.stringify(only)] : []), ...(after !== null ? [after] : [])],
  };
}
