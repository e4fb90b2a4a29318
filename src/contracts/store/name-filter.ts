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

/**
 * The names that could be one keystroke from `name` (insert, delete, substitute or swap neighbours; closestName
 * decides): a length within one of its, and, from three characters on, its first or its last character, since one
 * edit of a name that long never changes both.
 */
export function nearNameCondition(column: string, name: string): { condition: string; bindings: SqlStorageValue[] } {
  const length = `length(${column}) BETWEEN ? AND ?`;
  const bounds = [name.length - 1, name.length + 1];
  if (name.length < 3) return { condition: length, bindings: bounds };
  return {
    condition: `${length} AND (substr(${column}, 1, 1) = ? OR substr(${column}, -1, 1) = ?)`,
    bindings: [...bounds, name.slice(0, 1), name.slice(-1)],
  };
}
