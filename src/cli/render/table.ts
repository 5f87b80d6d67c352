/**
 * The human tables of `ls` and `log`: one timestamp format, and columns as wide as their widest cell. The rows
 * stream (a store may hold millions), so the widths come from the first `sample` rows, held back until they are
 * known; a later cell wider than all of those pushes its own row only. Cells are made printable (control characters
 * escaped) before they are measured, and measured by their width on a terminal (string-width: a CJK character or an
 * emoji takes two columns), not by their UTF-16 length.
 */
import terminalWidth from "string-width";
import { printable } from "../../base/printable.js";

export { tableTime } from "../../base/time.js";

/**
 * Printable ASCII takes as many columns as it has characters: answered here (string-width answers the same after its
 * own tests, each of which costs more than this one for the ASCII cells that are nearly all of an `ls`).
 */
const ASCII = /^[\u0020-\u007e]*$/;
const stringWidth = (s: string): number => (ASCII.test(s) ? s.length : terminalWidth(s));

/** `s` padded with spaces on the right to `width` terminal columns. */
export function padEndCols(s: string, width: number): string {
  const w = stringWidth(s);
  return w >= width ? s : s + " ".repeat(width - w);
}

/** `s` padded with spaces on the left to `width` terminal columns. */
export function padStartCols(s: string, width: number): string {
  const w = stringWidth(s);
  return w >= width ? s : " ".repeat(width - w) + s;
}

/** The width of `s` on a terminal, in columns. */
export const displayWidth = (s: string): number => stringWidth(s);

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
        i === c.length - 1 && !right.has(i)
          ? x
          : right.has(i)
            ? padStartCols(x, widths[i]!)
            : padEndCols(x, widths[i]!),
      )
      .join("  ")
      .trimEnd() + "\n";
  const flush = (force: boolean) => {
    if (force || buf.length > 65536) write(buf), (buf = "");
  };
  const release = () => {
    const rows = held!;
    held = undefined;
    widths = head.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i]!))));
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
