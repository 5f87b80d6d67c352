/**
 * The human tables of `ls` and `log`: one timestamp format, and columns as wide as their widest cell. The rows
 * stream (a store may hold millions), so the widths come from the first `sample` rows, held back until they are
 * known; a later cell wider than all of those pushes its own row only. Cells are made printable (control characters
 * escaped) before they are measured.
 */
import { printable } from "../../base/printable.js";

export { tableTime } from "../../base/time.js";

export interface StreamTable {
  /** one row of cells (as many as the head) */
  row(cells: readonly string[]): void;
  /** the rows still held back; call once at the end */
  end(): void;
  /** rows so far */
  readonly count: number;
}

/**
 * A table written through `write` in chunks: `right` names the columns aligned right (numbers); the last column is
 * never padded. Nothing is written for a table without rows.
 */
export function streamTable(
  head: readonly string[],
  right: ReadonlySet<number>,
  write: (text: string) => void,
  sample = 1000,
): StreamTable {
  let held: string[][] | undefined = [];
  let widths: number[] = [];
  let buf = "";
  let count = 0;
  const line = (c: readonly string[]) =>
    c
      .map((x, i) =>
        i === c.length - 1 && !right.has(i) ? x : right.has(i) ? x.padStart(widths[i]!) : x.padEnd(widths[i]!),
      )
      .join("  ")
      .trimEnd() + "\n";
  const flush = (force: boolean) => {
    if (force || buf.length > 65536) write(buf), (buf = "");
  };
  const release = () => {
    const rows = held!;
    held = undefined;
    widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    buf += line(head);
    for (const r of rows) buf += line(r);
  };
  return {
    row(cells) {
      const c = cells.map((x) => printable(x));
      count++;
      if (held) {
        held.push(c);
        if (held.length >= sample) release();
      } else buf += line(c);
      flush(false);
    },
    end() {
      if (held?.length) release();
      held = undefined;
      flush(true);
    },
    get count() {
      return count;
    },
  };
}
