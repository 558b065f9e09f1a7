/** Sorting a table's rows by one column: numbers and text in either direction, missing values always last. */
export type SortDirection = "asc" | "desc";

export function sortRows<T>(rows: readonly T[], value: (row: T) => number | string | null | undefined, dir: SortDirection): T[] {
  const sign = dir === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    const missingX = x === null || x === undefined || (typeof x === "number" && Number.isNaN(x));
    const missingY = y === null || y === undefined || (typeof y === "number" && Number.isNaN(y));
    if (missingX || missingY) return missingX === missingY ? 0 : missingX ? 1 : -1;
    if (typeof x === "number" && typeof y === "number") return sign * (x - y);
    return sign * String(x).localeCompare(String(y));
  });
}
