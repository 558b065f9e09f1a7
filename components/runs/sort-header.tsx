import type { SortDirection } from "@/lib/sort-rows";

/** A sortable column header: a button that says which way the column is sorted (aria-sort for screen readers). */
export function SortHeader(props: {
  label: string;
  title?: string;
  active: boolean;
  dir: SortDirection;
  onSort: () => void;
  /** Extra classes of the cell (e.g. a column hidden on small screens). */
  className?: string;
}) {
  const { label, title, active, dir, onSort, className } = props;
  return (
    <th
      className={`whitespace-nowrap px-3 py-2 ${className ?? ""}`}
      aria-sort={active ? (dir === "asc" ? "ascending" : "descending") : "none"}
      title={title}
    >
      {/* Named by its text, not aria-label, so the filters' labels ("Status", "Environment") stay unique. */}
      <button type="button" className="uppercase hover:text-slate-800" onClick={onSort}>
        <span className="sr-only">Sort by </span>
        {label}
        {active ? (dir === "asc" ? " ▲" : " ▼") : ""}
      </button>
    </th>
  );
}
