/** Word- and line-level text differences (the `diff` package). Pure. */
// the two modules used, not the package index (which loads all of its ~20 modules at start-up)
import { diffWordsWithSpace } from "diff/lib/diff/word.js";
import { createTwoFilesPatch, structuredPatch } from "diff/lib/patch/create.js";
import type { TextDiff } from "./types.js";

/** Texts at or under this many characters and lines get a word diff; longer ones a unified line diff. */
export const WORD_DIFF_MAX_CHARS = 400;
export const WORD_DIFF_MAX_LINES = 4;

const lineCount = (s: string) => (s.match(/\n/g)?.length ?? 0) + 1;

/** The difference between two texts: words for short text, lines (unified, 3 lines of context) for long text. */
export function textDiff(a: string, b: string): TextDiff {
  const short =
    a.length + b.length <= 2 * WORD_DIFF_MAX_CHARS &&
    lineCount(a) <= WORD_DIFF_MAX_LINES &&
    lineCount(b) <= WORD_DIFF_MAX_LINES;
  if (short) {
    return {
      mode: "words",
      parts: diffWordsWithSpace(a, b).map((p) => ({
        value: p.value,
        ...(p.added ? { added: true } : {}),
        ...(p.removed ? { removed: true } : {}),
      })),
    };
  }
  return {
    mode: "lines",
    patch: unifiedBody(createTwoFilesPatch("a", "b", withEol(a), withEol(b), "", "", { context: 3 })),
  };
}

/** A unified diff of two line lists (FileData.content) with the given file labels; plus +/− line counts. */
export function linesPatch(
  path: string,
  a: readonly string[],
  b: readonly string[],
): { patch: string; added: number; removed: number } {
  const at = a.length ? a.join("\n") + "\n" : "";
  const bt = b.length ? b.join("\n") + "\n" : "";
  if (at === bt) return { patch: "", added: 0, removed: 0 };
  const sp = structuredPatch(`a${path}`, `b${path}`, at, bt, "", "", { context: 3 });
  let added = 0;
  let removed = 0;
  for (const h of sp.hunks) for (const l of h.lines) l[0] === "+" ? added++ : l[0] === "-" ? removed++ : 0;
  const patch = unifiedBody(createTwoFilesPatch(`a${path}`, `b${path}`, at, bt, "", "", { context: 3 }));
  return { patch, added, removed };
}

const withEol = (s: string) => (s.endsWith("\n") ? s : s + "\n");

/** Drop the "===" separator line createTwoFilesPatch puts first; keep ---/+++ and the hunks. */
function unifiedBody(p: string): string {
  return p.replace(/^=+\n/, "").replace(/^(---|\+\+\+) (.*)\t$/gm, "$1 $2");
}
